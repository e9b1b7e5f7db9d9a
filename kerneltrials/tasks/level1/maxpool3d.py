"""3-D max pooling, 3x3x3 window, stride 2, padding 1 (memory-bound pooling)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["pooling", "maxpool", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 1, "channels": 32, "depth": 31, "height": 63, "width": 65},
                {"batch": 1, "channels": 4, "depth": 63, "height": 111, "width": 113},
                {"batch": 8, "channels": 96, "depth": 9, "height": 15, "width": 13}],
        "gpu": [{"batch": 16, "channels": 64, "depth": 63, "height": 127, "width": 129},
                {"batch": 4, "channels": 32, "depth": 127, "height": 255, "width": 257},
                {"batch": 128, "channels": 384, "depth": 15, "height": 17, "width": 15}],
    },
    "ranges": {"batch": [1, 512], "channels": [1, 2048], "depth": [3, 512], "height": [3, 1024],
               "width": [3, 1024]},
    "multiple_of": {},
    "backward": False,
}

batch = 1
channels = 32
depth = 31
height = 63
width = 65
kernel_size = 3
stride = 2
padding = 1


class Model(nn.Module):
    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.pool = nn.MaxPool3d(kernel_size, stride=stride, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)  # (batch, channels, d, h, w) -> (batch, channels, ~d/2, ~h/2, ~w/2)


def get_inputs():
    # Negative offset: padding with 0 instead of -inf gives wrong borders.
    return [torch.randn(batch, channels, depth, height, width) - 2.0]


def get_init_inputs():
    return [kernel_size, stride, padding]
