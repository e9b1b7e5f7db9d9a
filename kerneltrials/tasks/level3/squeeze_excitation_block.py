"""Conv3x3-BN-ReLU followed by squeeze-and-excitation (global pool, FC-ReLU-FC-sigmoid channel gate) and a residual add; forward and backward."""

import torch
import torch.nn as nn

TASK = {
    "level": 3,
    "tags": ["cnn", "squeeze-excitation", "conv2d", "gating", "residual", "backward",
             "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 8, "channels": 64, "height": 27, "width": 29},
            {"batch": 1, "channels": 128, "height": 31, "width": 33},
            {"batch": 48, "channels": 32, "height": 15, "width": 17},
        ],
        "gpu": [
            {"batch": 128, "channels": 256, "height": 28, "width": 28},
            {"batch": 64, "channels": 128, "height": 56, "width": 58},
            {"batch": 256, "channels": 512, "height": 14, "width": 14},
        ],
    },
    "ranges": {"batch": [1, 512], "channels": [4, 1024], "height": [1, 512], "width": [1, 512]},
    "multiple_of": {"channels": 4},
    "backward": True,
}

batch = 8
channels = 64
height = 27
width = 29
reduction = 4


class Model(nn.Module):
    def __init__(self, channels: int, reduction: int):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(channels)
        with torch.no_grad():
            self.bn.running_mean.normal_(0.0, 0.3)
            self.bn.running_var.uniform_(0.3, 2.0)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.normal_(0.0, 0.3)
        self.fc1 = nn.Linear(channels, channels // reduction)
        self.fc2 = nn.Linear(channels // reduction, channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.bn(self.conv(x)))  # (batch, channels, h, w)
        squeezed = y.mean(dim=(2, 3))  # (batch, channels)
        gate = torch.sigmoid(self.fc2(torch.relu(self.fc1(squeezed))))
        return x + y * gate[:, :, None, None]


def get_inputs():
    return [torch.randn(batch, channels, height, width)]


def get_init_inputs():
    return [channels, reduction]
