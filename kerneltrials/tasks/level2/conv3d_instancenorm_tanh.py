"""3x3x3 convolution, instance normalisation (per sample and channel, affine), tanh."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv3d", "instancenorm", "activation", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 2, "in_channels": 8, "out_channels": 16, "depth": 14, "height": 29, "width": 31},
            {"batch": 1, "in_channels": 4, "out_channels": 32, "depth": 20, "height": 41, "width": 39},
            {"batch": 4, "in_channels": 16, "out_channels": 8, "depth": 9, "height": 25, "width": 27},
        ],
        "gpu": [
            {"batch": 16, "in_channels": 32, "out_channels": 64, "depth": 31, "height": 63, "width": 63},
            {"batch": 4, "in_channels": 16, "out_channels": 32, "depth": 63, "height": 127, "width": 129},
            {"batch": 64, "in_channels": 64, "out_channels": 32, "depth": 15, "height": 31, "width": 33},
        ],
    },
    "ranges": {"batch": [1, 128], "in_channels": [1, 256], "out_channels": [1, 256],
               "depth": [2, 256], "height": [2, 512], "width": [2, 512]},
    "multiple_of": {},
    "backward": False,
}

batch = 2
in_channels = 8
out_channels = 16
depth = 14
height = 29
width = 31
eps = 1e-5


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size=3, padding=1, bias=False)
        self.weight = nn.Parameter(1.0 + 0.5 * torch.randn(out_channels))
        self.bias = nn.Parameter(0.5 * torch.randn(out_channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)  # (batch, out_channels, depth, height, width)
        y = F.instance_norm(y, weight=self.weight, bias=self.bias, eps=eps)
        return torch.tanh(y)


def get_inputs():
    return [torch.randn(batch, in_channels, depth, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
