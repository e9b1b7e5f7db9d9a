"""Mish, x * tanh(softplus(x)), forward and backward (memory-bound elementwise)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 1,
    "tags": ["activation", "elementwise", "backward", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 8, "channels": 64, "height": 63, "width": 65},
                {"batch": 2, "channels": 24, "height": 223, "width": 225},
                {"batch": 96, "channels": 255, "height": 7, "width": 9}],
        "gpu": [{"batch": 64, "channels": 128, "height": 111, "width": 113},
                {"batch": 16, "channels": 32, "height": 447, "width": 449},
                {"batch": 512, "channels": 1023, "height": 7, "width": 7}],
    },
    "ranges": {"batch": [1, 1024], "channels": [1, 4096], "height": [1, 1024], "width": [1, 1024]},
    "multiple_of": {},
    "backward": True,
}

batch = 8
channels = 64
height = 63
width = 65


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.mish(x)  # (batch, channels, height, width)


def get_inputs():
    # Per-channel offsets, as after a convolution: both the negative dip and the linear tail.
    offset = torch.randn(1, channels, 1, 1)
    return [torch.randn(batch, channels, height, width) * 2.5 + offset]


def get_init_inputs():
    return []
