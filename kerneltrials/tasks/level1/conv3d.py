"""3-D convolution, 3x3x3, stride 1, padding 1, with bias (compute-bound convolution)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["convolution", "conv3d", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 2, "in_channels": 16, "out_channels": 32, "depth": 15, "height": 31, "width": 33},
                {"batch": 1, "in_channels": 3, "out_channels": 24, "depth": 31, "height": 63, "width": 65},
                {"batch": 4, "in_channels": 48, "out_channels": 47, "depth": 7, "height": 15, "width": 13}],
        "gpu": [{"batch": 8, "in_channels": 64, "out_channels": 128, "depth": 31, "height": 63, "width": 65},
                {"batch": 4, "in_channels": 3, "out_channels": 64, "depth": 63, "height": 127, "width": 129},
                {"batch": 32, "in_channels": 256, "out_channels": 255, "depth": 7, "height": 15, "width": 13}],
    },
    "ranges": {"batch": [1, 256], "in_channels": [1, 1024], "out_channels": [1, 1024],
               "depth": [3, 256], "height": [3, 512], "width": [3, 512]},
    "multiple_of": {},
    "backward": False,
}

batch = 2
in_channels = 16
out_channels = 32
depth = 15
height = 31
width = 33
kernel_size = 3


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)  # (batch, in_channels, d, h, w) -> (batch, out_channels, d, h, w)


def get_inputs():
    return [torch.randn(batch, in_channels, depth, height, width) + torch.randn(1, in_channels, 1, 1, 1)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
