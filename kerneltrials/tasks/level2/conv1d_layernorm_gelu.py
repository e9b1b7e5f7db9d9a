"""Strided 1-D convolution over a waveform feature sequence, LayerNorm over channels, GELU (a wav2vec2 feature-extractor layer)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv1d", "strided", "layernorm", "activation", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 4, "in_channels": 128, "out_channels": 128, "length": 2001},
            {"batch": 1, "in_channels": 256, "out_channels": 255, "length": 3999},
            {"batch": 16, "in_channels": 64, "out_channels": 96, "length": 801},
        ],
        "gpu": [
            {"batch": 32, "in_channels": 512, "out_channels": 512, "length": 16001},
            {"batch": 8, "in_channels": 512, "out_channels": 512, "length": 64001},
            {"batch": 128, "in_channels": 256, "out_channels": 384, "length": 4001},
        ],
    },
    "ranges": {"batch": [1, 512], "in_channels": [1, 1024], "out_channels": [2, 1024],
               "length": [3, 262144]},
    "multiple_of": {},
    "backward": False,
}

batch = 4
in_channels = 128
out_channels = 128
length = 2001
eps = 1e-5


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size=3, stride=2, bias=False)
        self.norm = nn.LayerNorm(out_channels, eps=eps)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.normal_(0.0, 0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x).transpose(1, 2)  # (batch, frames, out_channels)
        return F.gelu(self.norm(y)).transpose(1, 2)  # (batch, out_channels, frames)


def get_inputs():
    return [torch.randn(batch, in_channels, length)]


def get_init_inputs():
    return [in_channels, out_channels]
