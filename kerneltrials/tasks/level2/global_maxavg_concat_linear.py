"""Concat-pooling head: global max and global average pooling concatenated, batch-normed, then a linear layer."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["pooling", "batchnorm", "linear", "gemm", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 32, "channels": 512, "height": 14, "width": 15, "classes": 256},
            {"batch": 8, "channels": 1024, "height": 23, "width": 21, "classes": 1000},
            {"batch": 128, "channels": 255, "height": 7, "width": 9, "classes": 37},
        ],
        "gpu": [
            {"batch": 512, "channels": 2048, "height": 7, "width": 7, "classes": 1000},
            {"batch": 256, "channels": 1024, "height": 14, "width": 14, "classes": 512},
            {"batch": 2048, "channels": 512, "height": 9, "width": 9, "classes": 101},
        ],
    },
    "ranges": {"batch": [1, 4096], "channels": [1, 4096], "height": [1, 256], "width": [1, 256],
               "classes": [1, 32768]},
    "multiple_of": {},
    "backward": False,
}

batch = 32
channels = 512
height = 14
width = 15
classes = 256
eps = 1e-5


class Model(nn.Module):
    def __init__(self, channels: int, classes: int):
        super().__init__()
        self.bn = nn.BatchNorm1d(2 * channels, eps=eps)
        self.fc = nn.Linear(2 * channels, classes)
        with torch.no_grad():
            self.bn.running_mean.normal_(0.0, 0.5)
            self.bn.running_var.uniform_(0.3, 2.0)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.normal_(0.0, 0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        pooled = torch.cat([F.adaptive_max_pool2d(x, 1), F.adaptive_avg_pool2d(x, 1)], dim=1)
        return self.fc(self.bn(pooled.flatten(1)))  # (batch, classes)


def get_inputs():
    return [torch.randn(batch, channels, height, width) * 1.5]


def get_init_inputs():
    return [channels, classes]
