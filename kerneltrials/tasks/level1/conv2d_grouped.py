"""Grouped 2-D convolution, 3x3, 4 groups, stride 2, padding 1, with bias (compute-bound)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["convolution", "conv2d", "grouped", "strided", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 8, "in_channels": 64, "out_channels": 128, "height": 63, "width": 65},
                {"batch": 2, "in_channels": 32, "out_channels": 64, "height": 223, "width": 225},
                {"batch": 32, "in_channels": 192, "out_channels": 196, "height": 17, "width": 15}],
        "gpu": [{"batch": 32, "in_channels": 256, "out_channels": 256, "height": 111, "width": 113},
                {"batch": 16, "in_channels": 64, "out_channels": 128, "height": 447, "width": 449},
                {"batch": 128, "in_channels": 1024, "out_channels": 1020, "height": 15, "width": 13}],
    },
    "ranges": {"batch": [1, 512], "in_channels": [4, 4096], "out_channels": [4, 4096],
               "height": [3, 2048], "width": [3, 2048]},
    "multiple_of": {"in_channels": 4, "out_channels": 4},  # both split into `groups`
    "backward": False,
}

batch = 8
in_channels = 64
out_channels = 128
height = 63
width = 65
kernel_size = 3
stride = 2
groups = 4


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int,
                 groups: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride=stride,
                              padding=kernel_size // 2, groups=groups)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)  # (batch, in_channels, h, w) -> (batch, out_channels, ~h/2, ~w/2)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width) + torch.randn(1, in_channels, 1, 1) * 0.5]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride, groups]
