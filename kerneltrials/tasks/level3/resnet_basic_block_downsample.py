"""ResNet basic block with downsampling: strided conv3x3-BN-ReLU, conv3x3-BN, 1x1 strided projection shortcut with BN, add, ReLU."""

import torch
import torch.nn as nn

TASK = {
    "level": 3,
    "tags": ["cnn", "resnet", "conv2d", "batchnorm", "residual", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 4, "in_channels": 32, "out_channels": 64, "height": 56, "width": 58},
            {"batch": 1, "in_channels": 64, "out_channels": 128, "height": 62, "width": 60},
            {"batch": 16, "in_channels": 64, "out_channels": 96, "height": 18, "width": 22},
        ],
        "gpu": [
            {"batch": 128, "in_channels": 64, "out_channels": 128, "height": 56, "width": 56},
            {"batch": 64, "in_channels": 128, "out_channels": 256, "height": 28, "width": 30},
            {"batch": 256, "in_channels": 256, "out_channels": 512, "height": 14, "width": 14},
        ],
    },
    "ranges": {"batch": [1, 512], "in_channels": [1, 1024], "out_channels": [1, 1024],
               "height": [2, 512], "width": [2, 512]},
    "multiple_of": {"height": 2, "width": 2},
    "backward": False,
}

batch = 4
in_channels = 32
out_channels = 64
height = 56
width = 58


def trained_bn(channels: int) -> nn.BatchNorm2d:
    bn = nn.BatchNorm2d(channels)
    with torch.no_grad():  # running statistics and affine of a trained network
        bn.running_mean.normal_(0.0, 0.3)
        bn.running_var.uniform_(0.3, 2.0)
        bn.weight.uniform_(0.5, 1.5)
        bn.bias.normal_(0.0, 0.3)
    return bn


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, out_channels, 3, stride=2, padding=1, bias=False)
        self.bn1 = trained_bn(out_channels)
        self.conv2 = nn.Conv2d(out_channels, out_channels, 3, padding=1, bias=False)
        self.bn2 = trained_bn(out_channels)
        self.shortcut = nn.Conv2d(in_channels, out_channels, 1, stride=2, bias=False)
        self.bn_shortcut = trained_bn(out_channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.bn1(self.conv1(x)))  # (batch, out_channels, h/2, w/2)
        y = self.bn2(self.conv2(y))
        return torch.relu(y + self.bn_shortcut(self.shortcut(x)))


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
