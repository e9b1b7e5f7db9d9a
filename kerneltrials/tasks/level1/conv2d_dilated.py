"""2-D convolution, 3x3 with dilation 2 and padding 2, with bias (compute-bound convolution)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["convolution", "conv2d", "dilated", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 8, "in_channels": 32, "out_channels": 64, "height": 63, "width": 65},
                {"batch": 2, "in_channels": 16, "out_channels": 32, "height": 127, "width": 129},
                {"batch": 16, "in_channels": 96, "out_channels": 95, "height": 17, "width": 15}],
        "gpu": [{"batch": 32, "in_channels": 128, "out_channels": 256, "height": 111, "width": 113},
                {"batch": 16, "in_channels": 64, "out_channels": 64, "height": 255, "width": 257},
                {"batch": 128, "in_channels": 512, "out_channels": 511, "height": 15, "width": 13}],
    },
    "ranges": {"batch": [1, 512], "in_channels": [1, 2048], "out_channels": [1, 2048],
               "height": [5, 1024], "width": [5, 1024]},
    "multiple_of": {},
    "backward": False,
}

batch = 8
in_channels = 32
out_channels = 64
height = 63
width = 65
kernel_size = 3
dilation = 2


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, dilation: int):
        super().__init__()
        # padding = dilation * (k - 1) / 2 keeps the spatial size.
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, dilation=dilation,
                              padding=dilation * (kernel_size - 1) // 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)  # (batch, in_channels, h, w) -> (batch, out_channels, h, w)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width) + torch.randn(1, in_channels, 1, 1) * 0.5]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, dilation]
