"""Transposed 3-D convolution, 3x3x3, stride 2, padding 1, output padding 1 (compute-bound)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["convolution", "conv_transpose3d", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 2, "in_channels": 32, "out_channels": 32, "depth": 11, "height": 15, "width": 17},
                {"batch": 1, "in_channels": 8, "out_channels": 16, "depth": 23, "height": 31, "width": 33},
                {"batch": 4, "in_channels": 64, "out_channels": 63, "depth": 5, "height": 7, "width": 9}],
        "gpu": [{"batch": 8, "in_channels": 128, "out_channels": 64, "depth": 15, "height": 31, "width": 33},
                {"batch": 4, "in_channels": 32, "out_channels": 32, "depth": 31, "height": 63, "width": 65},
                {"batch": 32, "in_channels": 256, "out_channels": 255, "depth": 7, "height": 9, "width": 7}],
    },
    "ranges": {"batch": [1, 256], "in_channels": [1, 1024], "out_channels": [1, 1024],
               "depth": [1, 256], "height": [1, 512], "width": [1, 512]},
    "multiple_of": {},
    "backward": False,
}

batch = 2
in_channels = 32
out_channels = 32
depth = 11
height = 15
width = 17
kernel_size = 3
stride = 2


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int):
        super().__init__()
        self.deconv = nn.ConvTranspose3d(in_channels, out_channels, kernel_size, stride=stride,
                                         padding=kernel_size // 2, output_padding=stride - 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.deconv(x)  # (batch, in_channels, d, h, w) -> (batch, out_channels, 2d, 2h, 2w)


def get_inputs():
    return [torch.randn(batch, in_channels, depth, height, width) * 1.5]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride]
