"""Stride-2 transposed convolution (2x upsampling), learned per-channel scale, tanh (a decoder output)."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["conv-transpose2d", "upsampling", "activation", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 24, "in_channels": 32, "out_channels": 16, "height": 31, "width": 33},
            {"batch": 6, "in_channels": 64, "out_channels": 3, "height": 63, "width": 65},
            {"batch": 48, "in_channels": 24, "out_channels": 24, "height": 17, "width": 23},
        ],
        "gpu": [
            {"batch": 64, "in_channels": 128, "out_channels": 64, "height": 63, "width": 65},
            {"batch": 16, "in_channels": 256, "out_channels": 3, "height": 127, "width": 129},
            {"batch": 128, "in_channels": 96, "out_channels": 96, "height": 33, "width": 31},
        ],
    },
    "ranges": {"batch": [1, 256], "in_channels": [1, 512], "out_channels": [1, 512],
               "height": [2, 512], "width": [2, 512]},
    "multiple_of": {},
    "backward": False,
}

batch = 24
in_channels = 32
out_channels = 16
height = 31
width = 33


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.deconv = nn.ConvTranspose2d(in_channels, out_channels, kernel_size=4, stride=2,
                                         padding=1)
        self.scale = nn.Parameter(1.0 + 0.5 * torch.randn(out_channels, 1, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.deconv(x)  # (batch, out_channels, 2 * height, 2 * width)
        return torch.tanh(y * self.scale)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width) * 2.0]


def get_init_inputs():
    return [in_channels, out_channels]
