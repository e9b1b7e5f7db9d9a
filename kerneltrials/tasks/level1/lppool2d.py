"""2-D power-average (LP) pooling with p = 2, 3x3 window, stride 2 (memory-bound pooling)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["pooling", "lppool", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 4, "channels": 32, "height": 127, "width": 129},
                {"batch": 1, "channels": 12, "height": 447, "width": 449},
                {"batch": 16, "channels": 96, "height": 31, "width": 33}],
        "gpu": [{"batch": 64, "channels": 64, "height": 223, "width": 225},
                {"batch": 16, "channels": 32, "height": 895, "width": 897},
                {"batch": 256, "channels": 384, "height": 31, "width": 33}],
    },
    "ranges": {"batch": [1, 512], "channels": [1, 2048], "height": [3, 2048], "width": [3, 2048]},
    "multiple_of": {},
    "backward": False,
}

batch = 4
channels = 32
height = 127
width = 129
norm_type = 2.0
kernel_size = 3
stride = 2


class Model(nn.Module):
    def __init__(self, norm_type: float, kernel_size: int, stride: int):
        super().__init__()
        self.pool = nn.LPPool2d(norm_type, kernel_size, stride=stride)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # (sum over the window of x^2) ^ (1/2): (batch, channels, h, w) -> (batch, channels, ~h/2, ~w/2)
        return self.pool(x)


def get_inputs():
    return [torch.randn(batch, channels, height, width) * 1.5 - 0.5]


def get_init_inputs():
    return [norm_type, kernel_size, stride]
