"""WaveNet residual stack of three layers (dilations 1, 2, 4): dilated causal conv, tanh * sigmoid gate, 1x1 residual and skip projections; returns output and summed skips."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 3,
    "tags": ["wavenet", "conv1d", "dilated", "causal", "gating", "residual", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 4, "channels": 64, "skip_channels": 128, "length": 500},
            {"batch": 1, "channels": 96, "skip_channels": 96, "length": 2000},
            {"batch": 16, "channels": 32, "skip_channels": 64, "length": 511},
        ],
        "gpu": [
            {"batch": 64, "channels": 256, "skip_channels": 256, "length": 16383},
            {"batch": 16, "channels": 512, "skip_channels": 256, "length": 32767},
            {"batch": 256, "channels": 128, "skip_channels": 256, "length": 4095},
        ],
    },
    "ranges": {"batch": [1, 512], "channels": [1, 1024], "skip_channels": [1, 1024],
               "length": [1, 131072]},
    "multiple_of": {},
    "backward": False,
}

batch = 4
channels = 64
skip_channels = 128
length = 500
dilations = (1, 2, 4)


class Layer(nn.Module):
    def __init__(self, channels: int, skip_channels: int, dilation: int):
        super().__init__()
        self.dilation = dilation
        self.conv = nn.Conv1d(channels, 2 * channels, kernel_size=2, dilation=dilation)
        self.residual = nn.Conv1d(channels, channels, 1)
        self.skip = nn.Conv1d(channels, skip_channels, 1)

    def forward(self, x: torch.Tensor):
        y = self.conv(F.pad(x, (self.dilation, 0)))  # causal: (batch, 2 * channels, length)
        filt, gate = y.chunk(2, dim=1)
        z = torch.tanh(filt) * torch.sigmoid(gate)
        return x + self.residual(z), self.skip(z)


class Model(nn.Module):
    def __init__(self, channels: int, skip_channels: int):
        super().__init__()
        self.layers = nn.ModuleList(Layer(channels, skip_channels, d) for d in dilations)

    def forward(self, x: torch.Tensor):
        skips = []
        for layer in self.layers:
            x, skip = layer(x)
            skips.append(skip)
        return x, torch.stack(skips).sum(0)  # (b, channels, length), (b, skip_channels, length)


def get_inputs():
    return [torch.randn(batch, channels, length)]


def get_init_inputs():
    return [channels, skip_channels]
