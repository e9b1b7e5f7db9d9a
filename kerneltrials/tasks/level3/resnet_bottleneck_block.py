"""ResNet bottleneck block: 1x1 reduce, 3x3, 1x1 expand (x4), each with BN, identity shortcut, ReLU; forward and backward."""

import torch
import torch.nn as nn

TASK = {
    "level": 3,
    "tags": ["cnn", "resnet", "conv2d", "batchnorm", "residual", "backward", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 6, "width_channels": 32, "height": 28, "width": 30},
            {"batch": 3, "width_channels": 64, "height": 27, "width": 25},
            {"batch": 24, "width_channels": 16, "height": 21, "width": 19},
        ],
        "gpu": [
            {"batch": 128, "width_channels": 64, "height": 56, "width": 56},
            {"batch": 64, "width_channels": 128, "height": 28, "width": 28},
            {"batch": 256, "width_channels": 256, "height": 14, "width": 14},
        ],
    },
    "ranges": {"batch": [1, 512], "width_channels": [1, 512], "height": [1, 512], "width": [1, 512]},
    "multiple_of": {},
    "backward": True,
}

batch = 6
width_channels = 32
height = 28
width = 30
expansion = 4


def trained_bn(channels: int) -> nn.BatchNorm2d:
    bn = nn.BatchNorm2d(channels)
    with torch.no_grad():  # running statistics and affine of a trained network
        bn.running_mean.normal_(0.0, 0.3)
        bn.running_var.uniform_(0.3, 2.0)
        bn.weight.uniform_(0.5, 1.5)
        bn.bias.normal_(0.0, 0.3)
    return bn


class Model(nn.Module):
    def __init__(self, width_channels: int, expansion: int):
        super().__init__()
        channels = width_channels * expansion
        self.conv1 = nn.Conv2d(channels, width_channels, 1, bias=False)
        self.bn1 = trained_bn(width_channels)
        self.conv2 = nn.Conv2d(width_channels, width_channels, 3, padding=1, bias=False)
        self.bn2 = trained_bn(width_channels)
        self.conv3 = nn.Conv2d(width_channels, channels, 1, bias=False)
        self.bn3 = trained_bn(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.bn1(self.conv1(x)))  # (batch, width_channels, h, w)
        y = torch.relu(self.bn2(self.conv2(y)))
        y = self.bn3(self.conv3(y))  # (batch, 4 * width_channels, h, w)
        return torch.relu(x + y)


def get_inputs():
    return [torch.randn(batch, width_channels * expansion, height, width)]


def get_init_inputs():
    return [width_channels, expansion]
