"""3x3x3 convolution, group normalisation, GELU (a 3D U-Net / medical-imaging stage)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv3d", "groupnorm", "activation", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 2, "in_channels": 8, "out_channels": 16, "depth": 15, "height": 31, "width": 33},
            {"batch": 1, "in_channels": 16, "out_channels": 32, "depth": 9, "height": 33, "width": 29},
            {"batch": 4, "in_channels": 4, "out_channels": 16, "depth": 12, "height": 25, "width": 27},
        ],
        "gpu": [
            {"batch": 8, "in_channels": 32, "out_channels": 64, "depth": 31, "height": 63, "width": 65},
            {"batch": 4, "in_channels": 64, "out_channels": 128, "depth": 17, "height": 65, "width": 63},
            {"batch": 32, "in_channels": 16, "out_channels": 32, "depth": 32, "height": 33, "width": 31},
        ],
    },
    "ranges": {"batch": [1, 128], "in_channels": [1, 256], "out_channels": [8, 512],
               "depth": [1, 256], "height": [1, 512], "width": [1, 512]},
    "multiple_of": {"out_channels": 8},
    "backward": False,
}

batch = 2
in_channels = 8
out_channels = 16
depth = 15
height = 31
width = 33
groups = 8


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, groups: int):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size=3, padding=1)
        self.norm = nn.GroupNorm(groups, out_channels)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.normal_(0.0, 0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.norm(self.conv(x))  # (batch, out_channels, depth, height, width)
        return F.gelu(y)


def get_inputs():
    return [torch.randn(batch, in_channels, depth, height, width) + 0.5]


def get_init_inputs():
    return [in_channels, out_channels, groups]
