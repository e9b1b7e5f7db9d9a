"""3x3 convolution without bias, learned per-channel bias, clamp to [-1, 1], learned per-channel scale."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["conv2d", "clamp", "elementwise", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 8, "in_channels": 24, "out_channels": 40, "height": 45, "width": 47},
            {"batch": 2, "in_channels": 3, "out_channels": 32, "height": 223, "width": 161},
            {"batch": 32, "in_channels": 40, "out_channels": 24, "height": 23, "width": 25},
        ],
        "gpu": [
            {"batch": 64, "in_channels": 96, "out_channels": 128, "height": 95, "width": 97},
            {"batch": 16, "in_channels": 3, "out_channels": 64, "height": 511, "width": 767},
            {"batch": 256, "in_channels": 128, "out_channels": 128, "height": 29, "width": 31},
        ],
    },
    "ranges": {"batch": [1, 512], "in_channels": [1, 512], "out_channels": [1, 512],
               "height": [3, 1024], "width": [3, 1024]},
    "multiple_of": {},
    "backward": False,
}

batch = 8
in_channels = 24
out_channels = 40
height = 45
width = 47


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1, bias=False)
        self.bias = nn.Parameter(0.5 * torch.randn(out_channels, 1, 1))
        self.scale = nn.Parameter(0.5 + torch.rand(out_channels, 1, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x) + self.bias  # (batch, out_channels, height, width)
        return torch.clamp(y, -1.0, 1.0) * self.scale


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
