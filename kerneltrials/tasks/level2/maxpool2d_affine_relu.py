"""ResNet-stem pooling: 3x3 stride-2 max pooling (padding 1), per-channel affine, ReLU."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["pooling", "elementwise", "activation", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 2, "channels": 64, "height": 111, "width": 113},
            {"batch": 1, "channels": 32, "height": 199, "width": 201},
            {"batch": 4, "channels": 96, "height": 55, "width": 57},
        ],
        "gpu": [
            {"batch": 256, "channels": 64, "height": 223, "width": 225},
            {"batch": 64, "channels": 128, "height": 255, "width": 257},
            {"batch": 1024, "channels": 96, "height": 55, "width": 57},
        ],
    },
    "ranges": {"batch": [1, 2048], "channels": [1, 1024], "height": [2, 1024], "width": [2, 1024]},
    "multiple_of": {},
    "backward": False,
}

batch = 2
channels = 64
height = 111
width = 113


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.scale = nn.Parameter(0.5 + torch.rand(channels, 1, 1))
        self.shift = nn.Parameter(-1.0 + 0.5 * torch.randn(channels, 1, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.max_pool2d(x, kernel_size=3, stride=2, padding=1)  # (batch, channels, h/2, w/2)
        return torch.relu(y * self.scale + self.shift)


def get_inputs():
    return [torch.randn(batch, channels, height, width)]


def get_init_inputs():
    return [channels]
