"""Pre-activation diffusion U-Net layer: GroupNorm (32 groups), SiLU, then a 3x3 convolution."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["groupnorm", "activation", "conv2d", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 4, "in_channels": 64, "out_channels": 64, "height": 31, "width": 33},
            {"batch": 2, "in_channels": 32, "out_channels": 64, "height": 63, "width": 61},
            {"batch": 8, "in_channels": 128, "out_channels": 96, "height": 15, "width": 17},
        ],
        "gpu": [
            {"batch": 16, "in_channels": 320, "out_channels": 320, "height": 64, "width": 64},
            {"batch": 8, "in_channels": 128, "out_channels": 128, "height": 127, "width": 129},
            {"batch": 64, "in_channels": 640, "out_channels": 640, "height": 31, "width": 33},
        ],
    },
    "ranges": {"batch": [1, 256], "in_channels": [32, 1280], "out_channels": [1, 1280],
               "height": [1, 512], "width": [1, 512]},
    "multiple_of": {"in_channels": 32},
    "backward": False,
}

batch = 4
in_channels = 64
out_channels = 64
height = 31
width = 33
groups = 32


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, groups: int):
        super().__init__()
        self.norm = nn.GroupNorm(groups, in_channels, eps=1e-5)
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.normal_(0.0, 0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.silu(self.norm(x))  # (batch, in_channels, height, width)
        return self.conv(y)  # (batch, out_channels, height, width)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width) * 2.0 + 0.5]


def get_init_inputs():
    return [in_channels, out_channels, groups]
