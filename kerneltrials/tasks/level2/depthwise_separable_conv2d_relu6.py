"""Depthwise-separable convolution (MobileNet v1 unit): depthwise 3x3, ReLU6, pointwise 1x1, ReLU6."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv2d", "depthwise", "pointwise", "activation", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 4, "in_channels": 64, "out_channels": 128, "height": 55, "width": 57},
            {"batch": 2, "in_channels": 32, "out_channels": 64, "height": 111, "width": 113},
            {"batch": 8, "in_channels": 255, "out_channels": 256, "height": 13, "width": 15},
        ],
        "gpu": [
            {"batch": 256, "in_channels": 128, "out_channels": 256, "height": 56, "width": 56},
            {"batch": 64, "in_channels": 32, "out_channels": 64, "height": 223, "width": 225},
            {"batch": 512, "in_channels": 511, "out_channels": 512, "height": 14, "width": 14},
        ],
    },
    "ranges": {"batch": [1, 1024], "in_channels": [1, 2048], "out_channels": [1, 2048],
               "height": [3, 512], "width": [3, 512]},
    "multiple_of": {},
    "backward": False,
}

batch = 4
in_channels = 64
out_channels = 128
height = 55
width = 57


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.depthwise = nn.Conv2d(in_channels, in_channels, kernel_size=3, padding=1,
                                   groups=in_channels)
        self.pointwise = nn.Conv2d(in_channels, out_channels, kernel_size=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.relu6(self.depthwise(x))  # (batch, in_channels, height, width)
        return F.relu6(self.pointwise(y))  # (batch, out_channels, height, width)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width) * 3.0]


def get_init_inputs():
    return [in_channels, out_channels]
