"""Dilated 3x3 convolution (dilation 2, an atrous/ASPP branch), inference batch norm, ELU."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv2d", "dilated", "batchnorm", "activation", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 4, "in_channels": 32, "out_channels": 32, "height": 63, "width": 65},
            {"batch": 1, "in_channels": 16, "out_channels": 64, "height": 129, "width": 97},
            {"batch": 16, "in_channels": 48, "out_channels": 24, "height": 27, "width": 31},
        ],
        "gpu": [
            {"batch": 32, "in_channels": 256, "out_channels": 256, "height": 65, "width": 65},
            {"batch": 8, "in_channels": 128, "out_channels": 128, "height": 255, "width": 257},
            {"batch": 128, "in_channels": 64, "out_channels": 96, "height": 63, "width": 61},
        ],
    },
    "ranges": {"batch": [1, 256], "in_channels": [1, 1024], "out_channels": [1, 1024],
               "height": [5, 1024], "width": [5, 1024]},
    "multiple_of": {},
    "backward": False,
}

batch = 4
in_channels = 32
out_channels = 32
height = 63
width = 65
eps = 1e-5


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=2, dilation=2,
                              bias=False)
        self.bn = nn.BatchNorm2d(out_channels, eps=eps)
        with torch.no_grad():
            self.bn.running_mean.normal_(0.0, 0.3)
            self.bn.running_var.uniform_(0.3, 2.0)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.normal_(0.0, 0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.bn(self.conv(x))  # (batch, out_channels, height, width)
        return F.elu(y)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
