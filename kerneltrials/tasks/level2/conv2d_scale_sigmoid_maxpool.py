"""3x3 convolution, per-channel scale, sigmoid, then 2x2 max pooling."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv2d", "activation", "pooling", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 8, "in_channels": 16, "out_channels": 32, "height": 64, "width": 62},
            {"batch": 2, "in_channels": 3, "out_channels": 32, "height": 190, "width": 128},
            {"batch": 32, "in_channels": 32, "out_channels": 32, "height": 30, "width": 34},
        ],
        "gpu": [
            {"batch": 64, "in_channels": 64, "out_channels": 128, "height": 128, "width": 126},
            {"batch": 32, "in_channels": 3, "out_channels": 64, "height": 510, "width": 512},
            {"batch": 256, "in_channels": 128, "out_channels": 96, "height": 34, "width": 30},
        ],
    },
    "ranges": {"batch": [1, 512], "in_channels": [1, 512], "out_channels": [1, 512],
               "height": [2, 1024], "width": [2, 1024]},
    "multiple_of": {"height": 2, "width": 2},
    "backward": False,
}

batch = 8
in_channels = 16
out_channels = 32
height = 64
width = 62


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1)
        self.scale = nn.Parameter(0.5 + 1.5 * torch.rand(out_channels, 1, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.sigmoid(self.conv(x) * self.scale)  # (batch, out_channels, height, width)
        return F.max_pool2d(y, kernel_size=2)  # (batch, out_channels, height / 2, width / 2)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width) * 1.5]


def get_init_inputs():
    return [in_channels, out_channels]
