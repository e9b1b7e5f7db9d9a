"""Adaptive 2-D average pooling to a fixed 7x7 grid: overlapping, uneven windows (memory-bound)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["pooling", "avgpool", "adaptive", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 16, "channels": 128, "height": 63, "width": 65},
                {"batch": 2, "channels": 64, "height": 223, "width": 225},
                {"batch": 64, "channels": 511, "height": 15, "width": 13}],
        "gpu": [{"batch": 64, "channels": 512, "height": 111, "width": 113},
                {"batch": 16, "channels": 256, "height": 447, "width": 449},
                {"batch": 512, "channels": 2047, "height": 15, "width": 13}],
    },
    "ranges": {"batch": [1, 1024], "channels": [1, 4096], "height": [1, 2048], "width": [1, 2048]},
    "multiple_of": {},
    "backward": False,
}

batch = 16
channels = 128
height = 63
width = 65
out_height = 7
out_width = 7


class Model(nn.Module):
    def __init__(self, out_height: int, out_width: int):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d((out_height, out_width))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)  # (batch, channels, h, w) -> (batch, channels, 7, 7)


def get_inputs():
    # A spatial gradient plus noise: window boundaries that are off by one change the means.
    ramp = torch.linspace(-2.0, 2.0, width).view(1, 1, 1, width)
    return [torch.randn(batch, channels, height, width) + ramp * torch.randn(1, channels, 1, 1)]


def get_init_inputs():
    return [out_height, out_width]
