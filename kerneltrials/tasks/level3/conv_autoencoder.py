"""Small convolutional autoencoder: two strided conv + ReLU encoder stages, two transposed-conv decoder stages, sigmoid reconstruction."""

import torch
import torch.nn as nn

TASK = {
    "level": 3,
    "tags": ["cnn", "autoencoder", "conv2d", "conv-transpose2d", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 8, "in_channels": 3, "base": 32, "height": 64, "width": 64},
            {"batch": 2, "in_channels": 1, "base": 32, "height": 128, "width": 96},
            {"batch": 32, "in_channels": 3, "base": 16, "height": 32, "width": 36},
        ],
        "gpu": [
            {"batch": 256, "in_channels": 3, "base": 64, "height": 64, "width": 64},
            {"batch": 64, "in_channels": 3, "base": 64, "height": 256, "width": 256},
            {"batch": 1024, "in_channels": 1, "base": 32, "height": 32, "width": 32},
        ],
    },
    "ranges": {"batch": [1, 2048], "in_channels": [1, 16], "base": [1, 256], "height": [4, 512],
               "width": [4, 512]},
    "multiple_of": {"height": 4, "width": 4},
    "backward": False,
}

batch = 8
in_channels = 3
base = 32
height = 64
width = 64


class Model(nn.Module):
    def __init__(self, in_channels: int, base: int):
        super().__init__()
        self.enc1 = nn.Conv2d(in_channels, base, 3, stride=2, padding=1)
        self.enc2 = nn.Conv2d(base, 2 * base, 3, stride=2, padding=1)
        self.dec1 = nn.ConvTranspose2d(2 * base, base, 4, stride=2, padding=1)
        self.dec2 = nn.ConvTranspose2d(base, in_channels, 4, stride=2, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        z = torch.relu(self.enc2(torch.relu(self.enc1(x))))  # (batch, 2 * base, h/4, w/4)
        y = torch.relu(self.dec1(z))
        return torch.sigmoid(self.dec2(y))  # (batch, in_channels, h, w)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, base]
