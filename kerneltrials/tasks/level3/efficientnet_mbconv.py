"""EfficientNet MBConv: 1x1 expand + BN + SiLU, depthwise 5x5 + BN + SiLU, squeeze-excitation, 1x1 project + BN, residual."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 3,
    "tags": ["cnn", "efficientnet", "depthwise", "squeeze-excitation", "batchnorm", "residual",
             "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 4, "channels": 40, "height": 27, "width": 29},
            {"batch": 1, "channels": 24, "height": 55, "width": 57},
            {"batch": 6, "channels": 80, "height": 13, "width": 15},
        ],
        "gpu": [
            {"batch": 256, "channels": 40, "height": 28, "width": 28},
            {"batch": 128, "channels": 24, "height": 56, "width": 58},
            {"batch": 512, "channels": 112, "height": 14, "width": 14},
        ],
    },
    "ranges": {"batch": [1, 1024], "channels": [4, 512], "height": [1, 256], "width": [1, 256]},
    "multiple_of": {"channels": 4},
    "backward": False,
}

batch = 4
channels = 40
height = 27
width = 29
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
        self.depthwise = nn.Conv2d(hidden, hidden, 5, padding=2, groups=hidden, bias=False)
        self.bn2 = trained_bn(hidden)
        self.se_reduce = nn.Conv2d(hidden, channels // 4, 1)
        self.se_expand = nn.Conv2d(channels // 4, hidden, 1)
        self.project = nn.Conv2d(hidden, channels, 1, bias=False)
        self.bn3 = trained_bn(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.silu(self.bn1(self.expand(x)))  # (batch, hidden, h, w)
        y = F.silu(self.bn2(self.depthwise(y)))
        gate = torch.sigmoid(self.se_expand(F.silu(self.se_reduce(y.mean((2, 3), keepdim=True)))))
        return x + self.bn3(self.project(y * gate))  # (batch, channels, h, w)


def get_inputs():
    return [torch.randn(batch, channels, height, width) * 1.5]


def get_init_inputs():
    return [channels, expansion]
