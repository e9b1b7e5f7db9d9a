"""1-D max pooling, window 3, stride 2, padding 1 (memory-bound pooling)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["pooling", "maxpool", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 32, "channels": 64, "length": 4093},
                {"batch": 4, "channels": 24, "length": 65521},
                {"batch": 256, "channels": 255, "length": 127}],
        "gpu": [{"batch": 64, "channels": 256, "length": 16383},
                {"batch": 8, "channels": 64, "length": 524287},
                {"batch": 512, "channels": 1023, "length": 255}],
    },
    "ranges": {"batch": [1, 1024], "channels": [1, 4096], "length": [3, 1048576]},
    "multiple_of": {},
    "backward": False,
}

batch = 32
channels = 64
length = 4093
kernel_size = 3
stride = 2
padding = 1


class Model(nn.Module):
    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.pool = nn.MaxPool1d(kernel_size, stride=stride, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)  # (batch, channels, length) -> (batch, channels, ~length/2)


def get_inputs():
    # Negative offset: padding with 0 instead of -inf gives wrong borders.
    return [torch.randn(batch, channels, length) - 2.0]


def get_init_inputs():
    return [kernel_size, stride, padding]
