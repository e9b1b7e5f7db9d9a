"""Channel-preserving 3x3 convolution, residual add of its input, ReLU (a ResNet block's tail)."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["conv2d", "residual", "activation", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 24, "channels": 32, "height": 45, "width": 47},
            {"batch": 6, "channels": 64, "height": 55, "width": 53},
            {"batch": 48, "channels": 24, "height": 29, "width": 31},
        ],
        "gpu": [
            {"batch": 64, "channels": 64, "height": 111, "width": 113},
            {"batch": 32, "channels": 256, "height": 55, "width": 57},
            {"batch": 256, "channels": 128, "height": 27, "width": 29},
        ],
    },
    "ranges": {"batch": [1, 512], "channels": [1, 512], "height": [3, 512], "width": [3, 512]},
    "multiple_of": {},
    "backward": False,
}

batch = 24
channels = 32
height = 45
width = 47


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, kernel_size=3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)  # (batch, channels, height, width)
        return torch.relu(y + x)


def get_inputs():
    return [torch.randn(batch, channels, height, width)]


def get_init_inputs():
    return [channels]
