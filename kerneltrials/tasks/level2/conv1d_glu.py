"""Gated 1-D convolution (ConvS2S/gated CNN): conv to 2C channels, GLU gate over channels, residual add, forward and backward."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv1d", "gating", "activation", "residual", "backward", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 4, "channels": 128, "length": 511},
            {"batch": 1, "channels": 255, "length": 511},
            {"batch": 16, "channels": 64, "length": 300},
        ],
        "gpu": [
            {"batch": 64, "channels": 512, "length": 2047},
            {"batch": 16, "channels": 1024, "length": 4095},
            {"batch": 256, "channels": 256, "length": 1025},
        ],
    },
    "ranges": {"batch": [1, 512], "channels": [1, 2048], "length": [1, 65536]},
    "multiple_of": {},
    "backward": True,
}

batch = 4
channels = 128
length = 511
kernel_size = 5


class Model(nn.Module):
    def __init__(self, channels: int, kernel_size: int):
        super().__init__()
        self.conv = nn.Conv1d(channels, 2 * channels, kernel_size, padding=kernel_size // 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.glu(self.conv(x), dim=1)  # (batch, channels, length)
        return (x + y) * math.sqrt(0.5)


def get_inputs():
    return [torch.randn(batch, channels, length)]


def get_init_inputs():
    return [channels, kernel_size]
