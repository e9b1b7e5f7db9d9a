"""3-D average pooling, 3x3x3, stride 2, padding 1, padding excluded from the count (memory-bound)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["pooling", "avgpool", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 2, "channels": 32, "depth": 31, "height": 63, "width": 65},
                {"batch": 1, "channels": 8, "depth": 63, "height": 111, "width": 113},
                {"batch": 16, "channels": 96, "depth": 9, "height": 15, "width": 13}],
        "gpu": [{"batch": 16, "channels": 64, "depth": 63, "height": 127, "width": 129},
                {"batch": 4, "channels": 32, "depth": 127, "height": 255, "width": 257},
                {"batch": 128, "channels": 384, "depth": 15, "height": 17, "width": 15}],
    },
    "ranges": {"batch": [1, 512], "channels": [1, 2048], "depth": [3, 512], "height": [3, 1024],
               "width": [3, 1024]},
    "multiple_of": {},
    "backward": False,
}

batch = 2
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
        # count_include_pad=False: border windows divide by their in-bounds element count.
        self.pool = nn.AvgPool3d(kernel_size, stride=stride, padding=padding, count_include_pad=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)  # (batch, channels, d, h, w) -> (batch, channels, ~d/2, ~h/2, ~w/2)


def get_inputs():
    return [torch.randn(batch, channels, depth, height, width) * 2.0 + 1.0]


def get_init_inputs():
    return [kernel_size, stride, padding]
