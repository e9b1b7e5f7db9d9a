"""Classifier head: global average pooling of a feature map, linear layer, softmax over classes."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["pooling", "linear", "gemm", "softmax", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 32, "channels": 512, "height": 15, "width": 17, "classes": 1000},
            {"batch": 8, "channels": 2048, "height": 7, "width": 9, "classes": 1001},
            {"batch": 256, "channels": 255, "height": 13, "width": 11, "classes": 100},
        ],
        "gpu": [
            {"batch": 512, "channels": 2048, "height": 7, "width": 7, "classes": 1000},
            {"batch": 256, "channels": 1024, "height": 15, "width": 15, "classes": 21841},
            {"batch": 2048, "channels": 512, "height": 9, "width": 9, "classes": 1000},
        ],
    },
    "ranges": {"batch": [1, 4096], "channels": [1, 4096], "height": [1, 256], "width": [1, 256],
               "classes": [2, 32768]},
    "multiple_of": {},
    "backward": False,
}

batch = 32
channels = 512
height = 15
width = 17
classes = 1000


class Model(nn.Module):
    def __init__(self, channels: int, classes: int):
        super().__init__()
        self.fc = nn.Linear(channels, classes)
        with torch.no_grad():
            self.fc.weight.mul_(8.0)  # a trained head: confident, non-uniform probabilities

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        pooled = F.adaptive_avg_pool2d(x, 1).flatten(1)  # (batch, channels)
        return torch.softmax(self.fc(pooled), dim=1)  # (batch, classes)


def get_inputs():
    return [torch.randn(batch, channels, height, width) + torch.randn(batch, channels, 1, 1)]


def get_init_inputs():
    return [channels, classes]
