"""WaveNet gated activation: dilated causal 1-D convolution to 2C channels, tanh(filter) * sigmoid(gate)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv1d", "dilated", "causal", "gating", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 4, "channels": 64, "length": 2047, "dilation": 4},
            {"batch": 1, "channels": 128, "length": 4001, "dilation": 16},
            {"batch": 16, "channels": 32, "length": 1000, "dilation": 2},
        ],
        "gpu": [
            {"batch": 64, "channels": 256, "length": 16383, "dilation": 8},
            {"batch": 16, "channels": 512, "length": 32767, "dilation": 64},
            {"batch": 256, "channels": 128, "length": 4095, "dilation": 2},
        ],
    },
    "ranges": {"batch": [1, 512], "channels": [1, 1024], "length": [1, 131072],
               "dilation": [1, 512]},
    "multiple_of": {},
    "backward": False,
}

batch = 4
channels = 64
length = 2047
dilation = 4
kernel_size = 2


class Model(nn.Module):
    def __init__(self, channels: int, dilation: int, kernel_size: int):
        super().__init__()
        self.conv = nn.Conv1d(channels, 2 * channels, kernel_size, dilation=dilation)
        self.left_pad = dilation * (kernel_size - 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(F.pad(x, (self.left_pad, 0)))  # (batch, 2 * channels, length)
        filt, gate = y.chunk(2, dim=1)
        return torch.tanh(filt) * torch.sigmoid(gate)


def get_inputs():
    return [torch.randn(batch, channels, length)]


def get_init_inputs():
    return [channels, dilation, kernel_size]
