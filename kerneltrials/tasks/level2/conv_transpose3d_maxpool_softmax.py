"""3x3x3 transposed convolution (stride 1), 2x2x2 max pooling, softmax over channels."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv-transpose3d", "pooling", "softmax", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 2, "in_channels": 8, "out_channels": 16, "depth": 10, "height": 20, "width": 22},
            {"batch": 1, "in_channels": 16, "out_channels": 8, "depth": 14, "height": 30, "width": 26},
            {"batch": 4, "in_channels": 4, "out_channels": 24, "depth": 6, "height": 16, "width": 18},
        ],
        "gpu": [
            {"batch": 16, "in_channels": 32, "out_channels": 64, "depth": 16, "height": 32, "width": 30},
            {"batch": 4, "in_channels": 16, "out_channels": 32, "depth": 30, "height": 64, "width": 62},
            {"batch": 64, "in_channels": 64, "out_channels": 32, "depth": 8, "height": 16, "width": 18},
        ],
    },
    "ranges": {"batch": [1, 128], "in_channels": [1, 256], "out_channels": [2, 256],
               "depth": [2, 128], "height": [2, 256], "width": [2, 256]},
    "multiple_of": {"depth": 2, "height": 2, "width": 2},
    "backward": False,
}

batch = 2
in_channels = 8
out_channels = 16
depth = 10
height = 20
width = 22


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.deconv = nn.ConvTranspose3d(in_channels, out_channels, kernel_size=3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.max_pool3d(self.deconv(x), kernel_size=2)  # (batch, out_channels, d/2, h/2, w/2)
        return torch.softmax(y, dim=1)


def get_inputs():
    return [torch.randn(batch, in_channels, depth, height, width) * 2.0]


def get_init_inputs():
    return [in_channels, out_channels]
