"""Depthwise causal 1-D convolution with SiLU, as in Mamba's input branch: left padding only, so no future leaks."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv1d", "depthwise", "causal", "activation", "llm", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 4, "channels": 768, "length": 511},
            {"batch": 2, "channels": 1024, "length": 1023},
            {"batch": 8, "channels": 383, "length": 400},
        ],
        "gpu": [
            {"batch": 64, "channels": 4096, "length": 2047},
            {"batch": 8, "channels": 5120, "length": 8191},
            {"batch": 256, "channels": 2048, "length": 513},
        ],
    },
    "ranges": {"batch": [1, 512], "channels": [1, 8192], "length": [1, 65536]},
    "multiple_of": {},
    "backward": False,
}

batch = 4
channels = 768
length = 511
kernel_size = 4


class Model(nn.Module):
    def __init__(self, channels: int, kernel_size: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(channels, 1, kernel_size) / kernel_size ** 0.5)
        self.bias = nn.Parameter(0.2 * torch.randn(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        k = self.weight.shape[-1]
        y = F.conv1d(F.pad(x, (k - 1, 0)), self.weight, self.bias, groups=x.shape[1])
        return F.silu(y)  # (batch, channels, length)


def get_inputs():
    return [torch.randn(batch, channels, length) * 1.5]


def get_init_inputs():
    return [channels, kernel_size]
