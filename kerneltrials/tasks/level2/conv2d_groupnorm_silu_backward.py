"""3x3 convolution, GroupNorm, SiLU: forward and backward through a diffusion U-Net conv layer."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv2d", "groupnorm", "activation", "backward", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 8, "in_channels": 32, "out_channels": 32, "height": 31, "width": 33},
            {"batch": 4, "in_channels": 16, "out_channels": 64, "height": 47, "width": 45},
            {"batch": 24, "in_channels": 64, "out_channels": 32, "height": 17, "width": 15},
        ],
        "gpu": [
            {"batch": 32, "in_channels": 128, "out_channels": 128, "height": 63, "width": 65},
            {"batch": 8, "in_channels": 64, "out_channels": 128, "height": 127, "width": 127},
            {"batch": 64, "in_channels": 256, "out_channels": 256, "height": 31, "width": 33},
        ],
    },
    "ranges": {"batch": [1, 256], "in_channels": [1, 1024], "out_channels": [8, 1024],
               "height": [1, 512], "width": [1, 512]},
    "multiple_of": {"out_channels": 8},
    "backward": True,
}

batch = 8
in_channels = 32
out_channels = 32
height = 31
width = 33
groups = 8


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, groups: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1)
        self.norm = nn.GroupNorm(groups, out_channels)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.normal_(0.0, 0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.norm(self.conv(x))  # (batch, out_channels, height, width)
        return F.silu(y)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width) + 0.3]


def get_init_inputs():
    return [in_channels, out_channels, groups]
