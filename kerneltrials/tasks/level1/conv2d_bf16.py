"""2-D convolution, 3x3, stride 1, padding 1, with bias (compute-bound convolution), in bfloat16.

The bfloat16 variant of L1/conv2d: inputs and parameters are cast to bfloat16 by the
harness, the output is bfloat16, and outputs are compared with the bfloat16 tolerance (1e-2).
"""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["convolution", "conv2d", "low-precision", "compute-bound"],
    "dtype": "bfloat16",
    "configs": {
        "cpu": [{"batch": 8, "in_channels": 32, "out_channels": 64, "height": 63, "width": 65},
                {"batch": 1, "in_channels": 3, "out_channels": 48, "height": 223, "width": 225},
                {"batch": 32, "in_channels": 96, "out_channels": 95, "height": 31, "width": 29}],
        "gpu": [{"batch": 32, "in_channels": 128, "out_channels": 256, "height": 111, "width": 113},
                {"batch": 16, "in_channels": 3, "out_channels": 64, "height": 447, "width": 449},
                {"batch": 128, "in_channels": 512, "out_channels": 511, "height": 15, "width": 13}],
    },
    "ranges": {"batch": [1, 512], "in_channels": [1, 2048], "out_channels": [1, 2048],
               "height": [3, 1024], "width": [3, 1024]},
    "multiple_of": {},
    "backward": False,
}

batch = 8
in_channels = 32
out_channels = 64
height = 63
width = 65
kernel_size = 3


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)  # (batch, in_channels, h, w) -> (batch, out_channels, h, w)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
