"""ResNet basic block: conv3x3, BN, ReLU, conv3x3, BN, identity shortcut, ReLU (inference-mode BN)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 3,
    "tags": ["conv2d", "batchnorm", "residual", "cnn", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 8, "channels": 32, "height": 45, "width": 47},
            {"batch": 2, "channels": 64, "height": 55, "width": 57},
            {"batch": 32, "channels": 24, "height": 23, "width": 21},
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

batch = 8
channels = 32
height = 45
width = 47
eps = 1e-5


def _trained_looking(bn: nn.BatchNorm2d) -> None:
    with torch.no_grad():  # running statistics that make the norm more than an identity
        bn.running_mean.normal_(0.0, 0.3)
        bn.running_var.uniform_(0.3, 2.0)
        bn.weight.uniform_(0.5, 1.5)
        bn.bias.normal_(0.0, 0.3)


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, kernel_size=3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels, eps=eps)
        self.conv2 = nn.Conv2d(channels, channels, kernel_size=3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels, eps=eps)
        _trained_looking(self.bn1)
        _trained_looking(self.bn2)

    def _bn(self, y: torch.Tensor, bn: nn.BatchNorm2d) -> torch.Tensor:
        return F.batch_norm(y, bn.running_mean, bn.running_var, bn.weight, bn.bias,
                            training=False, eps=eps)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self._bn(self.conv1(x), self.bn1))  # (batch, channels, height, width)
        y = self._bn(self.conv2(y), self.bn2)
        return torch.relu(y + x)


def get_inputs():
    return [torch.randn(batch, channels, height, width)]


def get_init_inputs():
    return [channels]
