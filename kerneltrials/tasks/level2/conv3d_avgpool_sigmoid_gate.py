"""3x3x3 convolution, 2x2x2 average pooling, then a sigmoid gate from a learned per-channel bias: y * sigmoid(y + b)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv3d", "pooling", "gating", "activation", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 2, "in_channels": 8, "out_channels": 16, "depth": 16, "height": 30, "width": 32},
            {"batch": 1, "in_channels": 16, "out_channels": 24, "depth": 8, "height": 40, "width": 38},
            {"batch": 4, "in_channels": 6, "out_channels": 12, "depth": 12, "height": 26, "width": 24},
        ],
        "gpu": [
            {"batch": 16, "in_channels": 32, "out_channels": 64, "depth": 32, "height": 64, "width": 62},
            {"batch": 4, "in_channels": 64, "out_channels": 64, "depth": 30, "height": 126, "width": 128},
            {"batch": 64, "in_channels": 16, "out_channels": 48, "depth": 16, "height": 32, "width": 34},
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
        self.gate_bias = nn.Parameter(0.5 * torch.randn(out_channels, 1, 1, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.avg_pool3d(self.conv(x), kernel_size=2)  # (batch, out_channels, d/2, h/2, w/2)
        return y * torch.sigmoid(y + self.gate_bias)


def get_inputs():
    return [torch.randn(batch, in_channels, depth, height, width) * 2.0]


def get_init_inputs():
    return [in_channels, out_channels]
