"""Segmentation head: 3x3 convolution to class logits, temperature scaling, softmax over the class dimension."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["conv2d", "softmax", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 4, "in_channels": 32, "classes": 21, "height": 63, "width": 65},
            {"batch": 1, "in_channels": 64, "classes": 19, "height": 97, "width": 129},
            {"batch": 16, "in_channels": 16, "classes": 150, "height": 31, "width": 29},
        ],
        "gpu": [
            {"batch": 32, "in_channels": 256, "classes": 21, "height": 127, "width": 129},
            {"batch": 8, "in_channels": 128, "classes": 19, "height": 511, "width": 255},
            {"batch": 64, "in_channels": 512, "classes": 150, "height": 63, "width": 63},
        ],
    },
    "ranges": {"batch": [1, 256], "in_channels": [1, 1024], "classes": [2, 1024],
               "height": [1, 1024], "width": [1, 1024]},
    "multiple_of": {},
    "backward": False,
}

batch = 4
in_channels = 32
classes = 21
height = 63
width = 65
temperature = 0.7


class Model(nn.Module):
    def __init__(self, in_channels: int, classes: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, classes, kernel_size=3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        logits = self.conv(x) / temperature  # (batch, classes, height, width)
        return torch.softmax(logits, dim=1)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width) * 2.0]


def get_init_inputs():
    return [in_channels, classes]
