"""1-D convolution, kernel 5, padding 2, with bias (compute-bound convolution)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["convolution", "conv1d", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 16, "in_channels": 64, "out_channels": 96, "length": 1021},
                {"batch": 2, "in_channels": 32, "out_channels": 33, "length": 16381},
                {"batch": 8, "in_channels": 128, "out_channels": 127, "length": 509}],
        "gpu": [{"batch": 64, "in_channels": 256, "out_channels": 384, "length": 4093},
                {"batch": 8, "in_channels": 128, "out_channels": 129, "length": 65521},
                {"batch": 256, "in_channels": 512, "out_channels": 511, "length": 511}],
    },
    "ranges": {"batch": [1, 1024], "in_channels": [1, 2048], "out_channels": [1, 2048],
               "length": [5, 262144]},
    "multiple_of": {},
    "backward": False,
}

batch = 16
in_channels = 64
out_channels = 96
length = 1021
kernel_size = 5


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int):
        super().__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)  # (batch, in_channels, length) -> (batch, out_channels, length)


def get_inputs():
    return [torch.randn(batch, in_channels, length) * 1.5]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
