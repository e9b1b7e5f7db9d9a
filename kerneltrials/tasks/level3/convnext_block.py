"""ConvNeXt block: depthwise 7x7 conv, channels-last LayerNorm, pointwise MLP (4x, GELU), layer scale, residual add."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 3,
    "tags": ["cnn", "convnext", "depthwise", "layernorm", "mlp", "residual", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 4, "channels": 96, "height": 27, "width": 29},
            {"batch": 1, "channels": 192, "height": 29, "width": 27},
            {"batch": 16, "channels": 64, "height": 13, "width": 15},
        ],
        "gpu": [
            {"batch": 128, "channels": 96, "height": 56, "width": 56},
            {"batch": 64, "channels": 192, "height": 28, "width": 28},
            {"batch": 256, "channels": 384, "height": 14, "width": 14},
        ],
    },
    "ranges": {"batch": [1, 512], "channels": [1, 2048], "height": [1, 256], "width": [1, 256]},
    "multiple_of": {},
    "backward": False,
}

batch = 4
channels = 96
height = 27
width = 29


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.dwconv = nn.Conv2d(channels, channels, 7, padding=3, groups=channels)
        self.norm = nn.LayerNorm(channels, eps=1e-6)
        self.fc1 = nn.Linear(channels, 4 * channels)
        self.fc2 = nn.Linear(4 * channels, channels)
        self.gamma = nn.Parameter(0.5 + 0.5 * torch.rand(channels))  # trained layer scale
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.normal_(0.0, 0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.dwconv(x).permute(0, 2, 3, 1)  # (batch, h, w, channels)
        y = self.fc2(F.gelu(self.fc1(self.norm(y))))
        return x + (self.gamma * y).permute(0, 3, 1, 2)  # (batch, channels, h, w)


def get_inputs():
    return [torch.randn(batch, channels, height, width)]


def get_init_inputs():
    return [channels]
