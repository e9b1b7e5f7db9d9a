"""2x2x2 max pooling of a volume, inference batch norm, ReLU (a 3D CNN downsampling step)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["pooling", "batchnorm", "activation", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 2, "channels": 24, "depth": 16, "height": 64, "width": 62},
            {"batch": 1, "channels": 24, "depth": 32, "height": 62, "width": 64},
            {"batch": 8, "channels": 16, "depth": 8, "height": 46, "width": 48},
        ],
        "gpu": [
            {"batch": 32, "channels": 64, "depth": 32, "height": 128, "width": 126},
            {"batch": 8, "channels": 128, "depth": 64, "height": 64, "width": 64},
            {"batch": 128, "channels": 32, "depth": 16, "height": 96, "width": 94},
        ],
    },
    "ranges": {"batch": [1, 256], "channels": [1, 512], "depth": [2, 256], "height": [2, 512],
               "width": [2, 512]},
    "multiple_of": {"depth": 2, "height": 2, "width": 2},
    "backward": False,
}

batch = 2
channels = 24
depth = 16
height = 64
width = 62
eps = 1e-5


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.bn = nn.BatchNorm3d(channels, eps=eps)
        with torch.no_grad():
            self.bn.running_mean.normal_(0.5, 0.3)
            self.bn.running_var.uniform_(0.3, 2.0)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.normal_(0.0, 0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.max_pool3d(x, kernel_size=2)  # (batch, channels, d/2, h/2, w/2)
        return torch.relu(self.bn(y))


def get_inputs():
    return [torch.randn(batch, channels, depth, height, width)]


def get_init_inputs():
    return [channels]
