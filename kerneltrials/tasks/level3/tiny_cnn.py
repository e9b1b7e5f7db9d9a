"""A small image classifier: two conv-ReLU-maxpool stages, global average pooling, linear head."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 3,
    "tags": ["cnn", "conv2d", "pooling", "linear", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 16, "height": 63, "width": 65, "width_mult": 16, "num_classes": 10},
            {"batch": 4, "height": 127, "width": 125, "width_mult": 8, "num_classes": 100},
            {"batch": 64, "height": 33, "width": 31, "width_mult": 12, "num_classes": 37},
        ],
        "gpu": [
            {"batch": 256, "height": 127, "width": 129, "width_mult": 32, "num_classes": 1000},
            {"batch": 64, "height": 255, "width": 253, "width_mult": 16, "num_classes": 100},
            {"batch": 1024, "height": 63, "width": 65, "width_mult": 48, "num_classes": 10},
        ],
    },
    "ranges": {"batch": [1, 2048], "height": [4, 1024], "width": [4, 1024],
               "width_mult": [1, 128], "num_classes": [2, 4096]},
    "multiple_of": {},
    "backward": False,
}

batch = 16
height = 63
width = 65
width_mult = 16
num_classes = 10
in_channels = 3


class Model(nn.Module):
    def __init__(self, in_channels: int, width_mult: int, num_classes: int):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, width_mult, kernel_size=3, padding=1)
        self.conv2 = nn.Conv2d(width_mult, 2 * width_mult, kernel_size=3, padding=1)
        self.head = nn.Linear(2 * width_mult, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.max_pool2d(torch.relu(self.conv1(x)), 2)  # (batch, width_mult, height/2, width/2)
        y = F.max_pool2d(torch.relu(self.conv2(y)), 2)  # (batch, 2*width_mult, height/4, width/4)
        y = y.mean(dim=(2, 3))  # (batch, 2 * width_mult)
        return self.head(y)  # (batch, num_classes)


def get_inputs():
    x = torch.randn(batch, in_channels, height, width)
    return [x + torch.randn(batch, in_channels, 1, 1)]  # per-image colour offsets


def get_init_inputs():
    return [in_channels, width_mult, num_classes]
