"""3x3 convolution, subtraction of each channel's spatial mean, GELU."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv2d", "reduction", "activation", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 24, "in_channels": 16, "out_channels": 32, "height": 47, "width": 45},
            {"batch": 6, "in_channels": 3, "out_channels": 48, "height": 127, "width": 125},
            {"batch": 48, "in_channels": 32, "out_channels": 24, "height": 31, "width": 29},
        ],
        "gpu": [
            {"batch": 64, "in_channels": 64, "out_channels": 128, "height": 127, "width": 129},
            {"batch": 32, "in_channels": 3, "out_channels": 64, "height": 511, "width": 509},
            {"batch": 256, "in_channels": 128, "out_channels": 96, "height": 31, "width": 33},
        ],
    },
    "ranges": {"batch": [1, 512], "in_channels": [1, 512], "out_channels": [1, 512],
               "height": [3, 1024], "width": [3, 1024]},
    "multiple_of": {},
    "backward": False,
}

batch = 24
in_channels = 16
out_channels = 32
height = 47
width = 45


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1, bias=False)
        # no conv bias: the normalisation below would cancel it

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)  # (batch, out_channels, height, width)
        y = y - y.mean(dim=(2, 3), keepdim=True)
        return F.gelu(y)


def get_inputs():
    x = torch.randn(batch, in_channels, height, width)
    return [x + 2.0 * torch.randn(batch, in_channels, 1, 1)]  # per-channel offsets


def get_init_inputs():
    return [in_channels, out_channels]
