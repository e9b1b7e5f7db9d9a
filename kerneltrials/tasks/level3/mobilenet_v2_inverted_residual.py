"""MobileNetV2 inverted residual: 1x1 expand (x6) + BN + ReLU6, depthwise 3x3 + BN + ReLU6, 1x1 linear projection + BN, residual add."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 3,
    "tags": ["cnn", "mobilenet", "depthwise", "conv2d", "batchnorm", "residual", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 2, "channels": 24, "height": 55, "width": 57},
            {"batch": 1, "channels": 32, "height": 63, "width": 61},
            {"batch": 8, "channels": 64, "height": 13, "width": 15},
        ],
        "gpu": [
            {"batch": 256, "channels": 24, "height": 56, "width": 56},
            {"batch": 128, "channels": 32, "height": 28, "width": 30},
            {"batch": 512, "channels": 96, "height": 14, "width": 14},
        ],
    },
    "ranges": {"batch": [1, 1024], "channels": [1, 512], "height": [1, 512], "width": [1, 512]},
    "multiple_of": {},
    "backward": False,
}

batch = 2
channels = 24
height = 55
width = 57
expansion = 6


def trained_bn(channels: int) -> nn.BatchNorm2d:
    bn = nn.BatchNorm2d(channels)
    with torch.no_grad():  # running statistics and affine of a trained network
        bn.running_mean.normal_(0.0, 0.3)
        bn.running_var.uniform_(0.3, 2.0)
        bn.weight.uniform_(0.5, 1.5)
        bn.bias.normal_(0.0, 0.3)
    return bn


class Model(nn.Module):
    def __init__(self, channels: int, expansion: int):
        super().__init__()
        hidden = channels * expansion
        self.expand = nn.Conv2d(channels, hidden, 1, bias=False)
        self.bn1 = trained_bn(hidden)
        self.depthwise = nn.Conv2d(hidden, hidden, 3, padding=1, groups=hidden, bias=False)
        self.bn2 = trained_bn(hidden)
        self.project = nn.Conv2d(hidden, channels, 1, bias=False)
        self.bn3 = trained_bn(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.relu6(self.bn1(self.expand(x)))  # (batch, 6 * channels, h, w)
        y = F.relu6(self.bn2(self.depthwise(y)))
        return x + self.bn3(self.project(y))  # (batch, channels, h, w)


def get_inputs():
    return [torch.randn(batch, channels, height, width) * 2.0]


def get_init_inputs():
    return [channels, expansion]
