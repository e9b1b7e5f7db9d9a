"""Transposed 1-D convolution, kernel 4, stride 2, padding 1: 2x upsampling (compute-bound)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["convolution", "conv_transpose1d", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 12, "in_channels": 128, "out_channels": 64, "length": 1023},
                {"batch": 2, "in_channels": 32, "out_channels": 48, "length": 12281},
                {"batch": 48, "in_channels": 255, "out_channels": 129, "length": 127}],
        "gpu": [{"batch": 64, "in_channels": 512, "out_channels": 256, "length": 4095},
                {"batch": 8, "in_channels": 64, "out_channels": 128, "length": 131071},
                {"batch": 256, "in_channels": 1023, "out_channels": 511, "length": 255}],
    },
    "ranges": {"batch": [1, 1024], "in_channels": [1, 4096], "out_channels": [1, 4096],
               "length": [2, 1048576]},
    "multiple_of": {},
    "backward": False,
}

batch = 12
in_channels = 128
out_channels = 64
length = 1023
kernel_size = 4
stride = 2
padding = 1


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int,
                 padding: int):
        super().__init__()
        self.deconv = nn.ConvTranspose1d(in_channels, out_channels, kernel_size,
                                         stride=stride, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.deconv(x)  # (batch, in_channels, length) -> (batch, out_channels, 2 * length)


def get_inputs():
    return [torch.randn(batch, in_channels, length) * 1.5]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride, padding]
