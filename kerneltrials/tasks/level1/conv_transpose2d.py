"""Transposed 2-D convolution, 3x3, stride 2, padding 1, output padding 1 (compute-bound).

Exact 2x spatial upsampling, as in decoder / U-Net upsampling paths.
"""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["convolution", "conv_transpose2d", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 8, "in_channels": 64, "out_channels": 48, "height": 31, "width": 33},
                {"batch": 2, "in_channels": 16, "out_channels": 24, "height": 111, "width": 113},
                {"batch": 32, "in_channels": 128, "out_channels": 95, "height": 9, "width": 7}],
        "gpu": [{"batch": 32, "in_channels": 256, "out_channels": 128, "height": 63, "width": 65},
                {"batch": 16, "in_channels": 64, "out_channels": 32, "height": 223, "width": 225},
                {"batch": 128, "in_channels": 512, "out_channels": 511, "height": 15, "width": 13}],
    },
    "ranges": {"batch": [1, 512], "in_channels": [1, 2048], "out_channels": [1, 2048],
               "height": [1, 1024], "width": [1, 1024]},
    "multiple_of": {},
    "backward": False,
}

batch = 8
in_channels = 64
out_channels = 48
height = 31
width = 33
kernel_size = 3
stride = 2


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int):
        super().__init__()
        self.deconv = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=stride,
                                         padding=kernel_size // 2, output_padding=stride - 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.deconv(x)  # (batch, in_channels, h, w) -> (batch, out_channels, 2h, 2w)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width) + torch.randn(1, in_channels, 1, 1) * 0.5]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride]
