"""3x3 convolution, GELU, global average pooling to one feature vector per image (a classifier neck)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv2d", "activation", "pooling", "reduction", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 8, "in_channels": 32, "out_channels": 64, "height": 31, "width": 33},
            {"batch": 2, "in_channels": 16, "out_channels": 32, "height": 95, "width": 97},
            {"batch": 32, "in_channels": 64, "out_channels": 48, "height": 13, "width": 15},
        ],
        "gpu": [
            {"batch": 128, "in_channels": 128, "out_channels": 256, "height": 31, "width": 33},
            {"batch": 32, "in_channels": 64, "out_channels": 128, "height": 127, "width": 129},
            {"batch": 512, "in_channels": 256, "out_channels": 512, "height": 15, "width": 13},
        ],
    },
    "ranges": {"batch": [1, 1024], "in_channels": [1, 1024], "out_channels": [1, 1024],
               "height": [1, 1024], "width": [1, 1024]},
    "multiple_of": {},
    "backward": False,
}

batch = 8
in_channels = 32
out_channels = 64
height = 31
width = 33


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.gelu(self.conv(x))  # (batch, out_channels, height, width)
        return y.mean(dim=(2, 3))  # (batch, out_channels)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width) * 1.5]


def get_init_inputs():
    return [in_channels, out_channels]
