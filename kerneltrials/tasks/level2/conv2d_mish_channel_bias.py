"""3x3 convolution without bias, Mish, then a learned per-channel bias and per-channel scale."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv2d", "activation", "elementwise", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 8, "in_channels": 32, "out_channels": 32, "height": 47, "width": 49},
            {"batch": 2, "in_channels": 8, "out_channels": 48, "height": 127, "width": 99},
            {"batch": 32, "in_channels": 24, "out_channels": 40, "height": 21, "width": 23},
        ],
        "gpu": [
            {"batch": 64, "in_channels": 128, "out_channels": 128, "height": 63, "width": 65},
            {"batch": 16, "in_channels": 32, "out_channels": 64, "height": 255, "width": 255},
            {"batch": 256, "in_channels": 96, "out_channels": 160, "height": 31, "width": 33},
        ],
    },
    "ranges": {"batch": [1, 512], "in_channels": [1, 512], "out_channels": [1, 512],
               "height": [3, 1024], "width": [3, 1024]},
    "multiple_of": {},
    "backward": False,
}

batch = 8
in_channels = 32
out_channels = 32
height = 47
width = 49


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1, bias=False)
        self.bias = nn.Parameter(0.5 * torch.randn(out_channels, 1, 1))
        self.scale = nn.Parameter(1.0 + 0.5 * torch.randn(out_channels, 1, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.mish(self.conv(x))  # (batch, out_channels, height, width)
        return (y + self.bias) * self.scale


def get_inputs():
    return [torch.randn(batch, in_channels, height, width) * 1.5]


def get_init_inputs():
    return [in_channels, out_channels]
