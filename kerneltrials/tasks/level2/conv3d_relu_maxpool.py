"""3x3x3 convolution over a volume, ReLU, 2x2x2 max pooling (a 3D CNN / video stage)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv3d", "activation", "pooling", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 2, "in_channels": 8, "out_channels": 16, "depth": 16, "height": 30, "width": 32},
            {"batch": 1, "in_channels": 3, "out_channels": 24, "depth": 8, "height": 62, "width": 64},
            {"batch": 4, "in_channels": 16, "out_channels": 16, "depth": 10, "height": 18, "width": 22},
        ],
        "gpu": [
            {"batch": 16, "in_channels": 32, "out_channels": 64, "depth": 32, "height": 64, "width": 62},
            {"batch": 8, "in_channels": 3, "out_channels": 64, "depth": 16, "height": 126, "width": 128},
            {"batch": 32, "in_channels": 64, "out_channels": 64, "depth": 16, "height": 30, "width": 32},
        ],
    },
    "ranges": {"batch": [1, 128], "in_channels": [1, 256], "out_channels": [1, 256],
               "depth": [2, 256], "height": [2, 512], "width": [2, 512]},
    "multiple_of": {"depth": 2, "height": 2, "width": 2},
    "backward": False,
}

batch = 2
in_channels = 8
out_channels = 16
depth = 16
height = 30
width = 32


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size=3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.conv(x))  # (batch, out_channels, depth, height, width)
        return F.max_pool3d(y, kernel_size=2)


def get_inputs():
    return [torch.randn(batch, in_channels, depth, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
