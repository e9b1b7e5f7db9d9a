"""Pointwise-then-spatial 3D block: 3x3x3 convolution without bias, inference batch norm, HardSwish."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv3d", "batchnorm", "activation", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 2, "in_channels": 12, "out_channels": 24, "depth": 8, "height": 31, "width": 33},
            {"batch": 1, "in_channels": 3, "out_channels": 32, "depth": 16, "height": 47, "width": 45},
            {"batch": 4, "in_channels": 24, "out_channels": 12, "depth": 7, "height": 21, "width": 23},
        ],
        "gpu": [
            {"batch": 16, "in_channels": 64, "out_channels": 64, "depth": 16, "height": 63, "width": 65},
            {"batch": 8, "in_channels": 3, "out_channels": 64, "depth": 32, "height": 127, "width": 127},
            {"batch": 64, "in_channels": 48, "out_channels": 96, "depth": 8, "height": 31, "width": 33},
        ],
    },
    "ranges": {"batch": [1, 128], "in_channels": [1, 256], "out_channels": [1, 256],
               "depth": [1, 256], "height": [1, 512], "width": [1, 512]},
    "multiple_of": {},
    "backward": False,
}

batch = 2
in_channels = 12
out_channels = 24
depth = 8
height = 31
width = 33
eps = 1e-5


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size=3, padding=1, bias=False)
        self.bn = nn.BatchNorm3d(out_channels, eps=eps)
        with torch.no_grad():
            self.bn.running_mean.normal_(0.0, 0.3)
            self.bn.running_var.uniform_(0.3, 2.0)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.normal_(0.0, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.bn(self.conv(x))  # (batch, out_channels, depth, height, width)
        return F.hardswish(y)


def get_inputs():
    return [torch.randn(batch, in_channels, depth, height, width) * 1.5]


def get_init_inputs():
    return [in_channels, out_channels]
