"""2-D average pooling, 3x3 window, stride 2, padding 1, padding counted (memory-bound)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["pooling", "avgpool", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 8, "channels": 32, "height": 127, "width": 129},
                {"batch": 1, "channels": 48, "height": 447, "width": 449},
                {"batch": 32, "channels": 96, "height": 31, "width": 33}],
        "gpu": [{"batch": 64, "channels": 64, "height": 223, "width": 225},
                {"batch": 16, "channels": 32, "height": 895, "width": 897},
                {"batch": 256, "channels": 384, "height": 31, "width": 33}],
    },
    "ranges": {"batch": [1, 512], "channels": [1, 2048], "height": [3, 2048], "width": [3, 2048]},
    "multiple_of": {},
    "backward": False,
}

batch = 8
channels = 32
height = 127
width = 129
kernel_size = 3
stride = 2
padding = 1


class Model(nn.Module):
    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.pool = nn.AvgPool2d(kernel_size, stride=stride, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)  # (batch, channels, h, w) -> (batch, channels, ~h/2, ~w/2)


def get_inputs():
    # A non-zero mean makes the border divisor (count_include_pad=True) visible.
    return [torch.randn(batch, channels, height, width) * 2.0 + 1.0]


def get_init_inputs():
    return [kernel_size, stride, padding]
