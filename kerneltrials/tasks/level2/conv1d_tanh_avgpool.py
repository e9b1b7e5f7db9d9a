"""1-D convolution over a signal, tanh, then average pooling (window 4, stride 2)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv1d", "activation", "pooling", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 8, "in_channels": 64, "out_channels": 128, "length": 1001},
            {"batch": 2, "in_channels": 32, "out_channels": 96, "length": 4095},
            {"batch": 32, "in_channels": 96, "out_channels": 64, "length": 251},
        ],
        "gpu": [
            {"batch": 128, "in_channels": 256, "out_channels": 256, "length": 4095},
            {"batch": 32, "in_channels": 128, "out_channels": 512, "length": 16385},
            {"batch": 512, "in_channels": 512, "out_channels": 256, "length": 1001},
        ],
    },
    "ranges": {"batch": [1, 1024], "in_channels": [1, 1024], "out_channels": [1, 1024],
               "length": [4, 262144]},
    "multiple_of": {},
    "backward": False,
}

batch = 8
in_channels = 64
out_channels = 128
length = 1001


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size=7, padding=3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.tanh(self.conv(x))  # (batch, out_channels, length)
        return F.avg_pool1d(y, kernel_size=4, stride=2)


def get_inputs():
    return [torch.randn(batch, in_channels, length) * 0.5]


def get_init_inputs():
    return [in_channels, out_channels]
