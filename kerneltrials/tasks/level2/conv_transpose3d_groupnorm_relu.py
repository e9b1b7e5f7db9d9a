"""3D decoder stage: 2x2x2 stride-2 transposed convolution, group normalisation, ReLU."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["conv-transpose3d", "upsampling", "groupnorm", "activation", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 4, "in_channels": 32, "out_channels": 16, "depth": 8, "height": 15, "width": 17},
            {"batch": 2, "in_channels": 64, "out_channels": 32, "depth": 6, "height": 21, "width": 19},
            {"batch": 8, "in_channels": 16, "out_channels": 16, "depth": 7, "height": 11, "width": 13},
        ],
        "gpu": [
            {"batch": 8, "in_channels": 128, "out_channels": 64, "depth": 16, "height": 31, "width": 33},
            {"batch": 2, "in_channels": 64, "out_channels": 32, "depth": 32, "height": 63, "width": 63},
            {"batch": 32, "in_channels": 256, "out_channels": 128, "depth": 8, "height": 15, "width": 17},
        ],
    },
    "ranges": {"batch": [1, 128], "in_channels": [1, 512], "out_channels": [8, 512],
               "depth": [1, 128], "height": [1, 256], "width": [1, 256]},
    "multiple_of": {"out_channels": 8},
    "backward": False,
}

batch = 4
in_channels = 32
out_channels = 16
depth = 8
height = 15
width = 17
groups = 8


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, groups: int):
        super().__init__()
        self.up = nn.ConvTranspose3d(in_channels, out_channels, kernel_size=2, stride=2)
        self.norm = nn.GroupNorm(groups, out_channels)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.normal_(0.0, 0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.norm(self.up(x))  # (batch, out_channels, 2 * depth, 2 * height, 2 * width)
        return torch.relu(y)


def get_inputs():
    return [torch.randn(batch, in_channels, depth, height, width) + 0.3]


def get_init_inputs():
    return [in_channels, out_channels, groups]
