"""DenseNet dense block of 4 layers: each BN-ReLU-conv1x1 (4k) - BN-ReLU-conv3x3 (k) and concatenates its k new channels."""

import torch
import torch.nn as nn

TASK = {
    "level": 3,
    "tags": ["cnn", "densenet", "conv2d", "batchnorm", "concat", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 2, "in_channels": 64, "growth": 32, "height": 27, "width": 29},
            {"batch": 1, "in_channels": 128, "growth": 16, "height": 55, "width": 53},
            {"batch": 6, "in_channels": 96, "growth": 24, "height": 13, "width": 15},
        ],
        "gpu": [
            {"batch": 128, "in_channels": 64, "growth": 32, "height": 56, "width": 56},
            {"batch": 64, "in_channels": 128, "growth": 32, "height": 28, "width": 30},
            {"batch": 256, "in_channels": 256, "growth": 48, "height": 14, "width": 14},
        ],
    },
    "ranges": {"batch": [1, 512], "in_channels": [1, 1024], "growth": [1, 128],
               "height": [1, 512], "width": [1, 512]},
    "multiple_of": {},
    "backward": False,
}

batch = 2
in_channels = 64
growth = 32
height = 27
width = 29
layers = 4


def trained_bn(channels: int) -> nn.BatchNorm2d:
    bn = nn.BatchNorm2d(channels)
    with torch.no_grad():  # running statistics and affine of a trained network
        bn.running_mean.normal_(0.0, 0.3)
        bn.running_var.uniform_(0.3, 2.0)
        bn.weight.uniform_(0.5, 1.5)
        bn.bias.normal_(0.0, 0.3)
    return bn


class DenseLayer(nn.Module):
    def __init__(self, in_channels: int, growth: int):
        super().__init__()
        self.bn1 = trained_bn(in_channels)
        self.conv1 = nn.Conv2d(in_channels, 4 * growth, 1, bias=False)
        self.bn2 = trained_bn(4 * growth)
        self.conv2 = nn.Conv2d(4 * growth, growth, 3, padding=1, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv1(torch.relu(self.bn1(x)))  # (batch, 4 * growth, h, w)
        return self.conv2(torch.relu(self.bn2(y)))  # (batch, growth, h, w)


class Model(nn.Module):
    def __init__(self, in_channels: int, growth: int, layers: int):
        super().__init__()
        self.layers = nn.ModuleList(DenseLayer(in_channels + i * growth, growth)
                                    for i in range(layers))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = torch.cat([x, layer(x)], dim=1)
        return x  # (batch, in_channels + layers * growth, h, w)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, growth, layers]
