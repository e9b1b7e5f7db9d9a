"""float16 variant: 3x3 convolution, group normalisation, tanh (a normalised conv block as in diffusion U-Nets)."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["conv2d", "groupnorm", "activation", "low-precision", "compute-bound"],
    "dtype": "float16",
    "configs": {
        "cpu": [
            {"batch": 24, "in_channels": 16, "groups": 8, "channels_per_group": 4, "height": 45, "width": 47},
            {"batch": 6, "in_channels": 32, "groups": 6, "channels_per_group": 8, "height": 63, "width": 61},
            {"batch": 48, "in_channels": 8, "groups": 4, "channels_per_group": 5, "height": 33, "width": 35},
        ],
        "gpu": [
            {"batch": 64, "in_channels": 64, "groups": 32, "channels_per_group": 4, "height": 127, "width": 129},
            {"batch": 16, "in_channels": 128, "groups": 16, "channels_per_group": 12, "height": 95, "width": 97},
            {"batch": 128, "in_channels": 32, "groups": 8, "channels_per_group": 7, "height": 63, "width": 65},
        ],
    },
    "ranges": {"batch": [1, 256], "in_channels": [1, 512], "groups": [1, 64],
               "channels_per_group": [1, 32], "height": [3, 1024], "width": [3, 1024]},
    "multiple_of": {},
    "backward": False,
}

batch = 24
in_channels = 16
groups = 8
channels_per_group = 4
height = 45
width = 47
out_channels = groups * channels_per_group


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, groups: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1)
        self.norm = nn.GroupNorm(groups, out_channels)
        with torch.no_grad():  # a learned affine, so the norm is not the plain standardisation
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.normal_(0.0, 0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)  # (batch, out_channels, height, width)
        return torch.tanh(self.norm(y))


def get_inputs():
    return [torch.randn(batch, in_channels, height, width) * 2.0]


def get_init_inputs():
    return [in_channels, out_channels, groups]
