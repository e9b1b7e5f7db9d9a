"""3x3 convolution, minimum over channels, then tanh: a one-channel map per image."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["conv2d", "reduction", "activation", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 8, "in_channels": 16, "out_channels": 32, "height": 63, "width": 61},
            {"batch": 2, "in_channels": 3, "out_channels": 16, "height": 191, "width": 193},
            {"batch": 16, "in_channels": 32, "out_channels": 48, "height": 29, "width": 31},
        ],
        "gpu": [
            {"batch": 64, "in_channels": 64, "out_channels": 128, "height": 127, "width": 129},
            {"batch": 32, "in_channels": 3, "out_channels": 32, "height": 511, "width": 511},
            {"batch": 256, "in_channels": 128, "out_channels": 64, "height": 31, "width": 33},
        ],
    },
    "ranges": {"batch": [1, 512], "in_channels": [1, 512], "out_channels": [2, 512],
               "height": [3, 1024], "width": [3, 1024]},
    "multiple_of": {},
    "backward": False,
}

batch = 8
in_channels = 16
out_channels = 32
height = 63
width = 61


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)  # (batch, out_channels, height, width)
        y = torch.amin(y, dim=1, keepdim=True)  # (batch, 1, height, width)
        return torch.tanh(y)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width) * 0.5]


def get_init_inputs():
    return [in_channels, out_channels]
