"""Hardswish over an image-shaped tensor (memory-bound elementwise, piecewise)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 1,
    "tags": ["activation", "elementwise", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 32, "channels": 64, "height": 63, "width": 65},
                {"batch": 8, "channels": 24, "height": 225, "width": 223},
                {"batch": 64, "channels": 96, "height": 31, "width": 33}],
        "gpu": [{"batch": 64, "channels": 128, "height": 111, "width": 113},
                {"batch": 32, "channels": 96, "height": 225, "width": 223},
                {"batch": 256, "channels": 576, "height": 15, "width": 15}],
    },
    "ranges": {"batch": [1, 512], "channels": [1, 1024], "height": [1, 512], "width": [1, 512]},
    "multiple_of": {},
    "backward": False,
}

batch = 32
channels = 64
height = 63
width = 65


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.hardswish(x)  # (batch, channels, height, width)


def get_inputs():
    # Scaled so that all three pieces (x <= -3, -3 < x < 3, x >= 3) are well populated.
    return [torch.randn(batch, channels, height, width) * 3.0]


def get_init_inputs():
    return []
