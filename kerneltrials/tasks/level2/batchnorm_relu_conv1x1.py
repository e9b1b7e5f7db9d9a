"""DenseNet-style pre-activation bottleneck: inference batch norm, ReLU, then a 1x1 convolution."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["batchnorm", "activation", "conv2d", "pointwise", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 8, "in_channels": 256, "out_channels": 128, "height": 27, "width": 29},
            {"batch": 2, "in_channels": 96, "out_channels": 128, "height": 55, "width": 57},
            {"batch": 32, "in_channels": 511, "out_channels": 128, "height": 7, "width": 9},
        ],
        "gpu": [
            {"batch": 128, "in_channels": 256, "out_channels": 128, "height": 56, "width": 56},
            {"batch": 64, "in_channels": 512, "out_channels": 128, "height": 28, "width": 30},
            {"batch": 256, "in_channels": 1023, "out_channels": 128, "height": 14, "width": 14},
        ],
    },
    "ranges": {"batch": [1, 512], "in_channels": [1, 2048], "out_channels": [1, 1024],
               "height": [1, 512], "width": [1, 512]},
    "multiple_of": {},
    "backward": False,
}

batch = 8
in_channels = 256
out_channels = 128
height = 27
width = 29
eps = 1e-5


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.bn = nn.BatchNorm2d(in_channels, eps=eps)
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=1, bias=False)
        with torch.no_grad():
            self.bn.running_mean.normal_(0.0, 0.5)
            self.bn.running_var.uniform_(0.3, 2.0)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.normal_(0.0, 0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.bn(x))  # (batch, in_channels, height, width)
        return self.conv(y)  # (batch, out_channels, height, width)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
