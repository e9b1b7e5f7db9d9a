"""3x3 valid convolution, hard-swish, 2x2 average pooling (a mobile-network downsampling block)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv2d", "activation", "pooling", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 16, "in_channels": 16, "out_channels": 32, "height": 66, "width": 62},
            {"batch": 4, "in_channels": 24, "out_channels": 40, "height": 99, "width": 131},
            {"batch": 64, "in_channels": 8, "out_channels": 24, "height": 35, "width": 37},
        ],
        "gpu": [
            {"batch": 64, "in_channels": 64, "out_channels": 128, "height": 130, "width": 126},
            {"batch": 16, "in_channels": 32, "out_channels": 96, "height": 255, "width": 259},
            {"batch": 256, "in_channels": 96, "out_channels": 64, "height": 35, "width": 37},
        ],
    },
    "ranges": {"batch": [1, 512], "in_channels": [1, 512], "out_channels": [1, 512],
               "height": [4, 1024], "width": [4, 1024]},
    "multiple_of": {},
    "backward": False,
}

batch = 16
in_channels = 16
out_channels = 32
height = 66
width = 62


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.hardswish(self.conv(x))  # (batch, out_channels, height - 2, width - 2)
        return F.avg_pool2d(y, kernel_size=2)


def get_inputs():
    # Scaled so that the hard-swish's three regions (0, quadratic, identity) are all used.
    return [torch.randn(batch, in_channels, height, width) * 3.0]


def get_init_inputs():
    return [in_channels, out_channels]
