"""Depthwise 2-D convolution, 3x3, stride 1, padding 1 (memory-bound convolution), in float16.

The float16 variant of L1/conv2d_depthwise: inputs and parameters are cast to float16 by the
harness, the output is float16, and outputs are compared with the float16 tolerance (1e-2).
"""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["convolution", "depthwise", "low-precision", "memory-bound"],
    "dtype": "float16",
    "configs": {
        "cpu": [{"batch": 16, "channels": 64, "height": 63, "width": 65},
                {"batch": 2, "channels": 32, "height": 223, "width": 225},
                {"batch": 32, "channels": 193, "height": 31, "width": 29}],
        "gpu": [{"batch": 64, "channels": 128, "height": 111, "width": 113},
                {"batch": 16, "channels": 32, "height": 447, "width": 449},
                {"batch": 256, "channels": 961, "height": 15, "width": 15}],
    },
    "ranges": {"batch": [1, 512], "channels": [1, 4096], "height": [3, 1024], "width": [3, 1024]},
    "multiple_of": {},
    "backward": False,
}

batch = 16
channels = 64
height = 63
width = 65
kernel_size = 3


class Model(nn.Module):
    def __init__(self, channels: int, kernel_size: int):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, kernel_size, padding=kernel_size // 2,
                              groups=channels, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)  # (batch, channels, h, w) -> (batch, channels, h, w)


def get_inputs():
    return [torch.randn(batch, channels, height, width) * 2.0]


def get_init_inputs():
    return [channels, kernel_size]
