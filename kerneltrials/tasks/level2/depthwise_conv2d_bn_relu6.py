"""3x3 depthwise convolution, inference-mode batch norm, ReLU6 (a MobileNetV2 block; memory-bound)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv2d", "depthwise", "batchnorm", "activation", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 16, "channels": 96, "height": 55, "width": 57},
            {"batch": 4, "channels": 144, "height": 111, "width": 113},
            {"batch": 64, "channels": 240, "height": 13, "width": 15},
        ],
        "gpu": [
            {"batch": 128, "channels": 96, "height": 111, "width": 113},
            {"batch": 64, "channels": 384, "height": 55, "width": 57},
            {"batch": 256, "channels": 960, "height": 13, "width": 15},
        ],
    },
    "ranges": {"batch": [1, 512], "channels": [1, 2048], "height": [3, 512], "width": [3, 512]},
    "multiple_of": {},
    "backward": False,
}

batch = 16
channels = 96
height = 55
width = 57
eps = 1e-5


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, kernel_size=3, padding=1, groups=channels,
                              bias=False)
        self.bn = nn.BatchNorm2d(channels, eps=eps)
        with torch.no_grad():  # trained-looking statistics, so the norm is not an identity
            self.bn.running_mean.normal_(0.0, 0.3)
            self.bn.running_var.uniform_(0.2, 2.0)
            self.bn.weight.uniform_(0.5, 2.0)
            self.bn.bias.normal_(1.0, 1.0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)  # (batch, channels, height, width)
        y = F.batch_norm(y, self.bn.running_mean, self.bn.running_var, self.bn.weight,
                         self.bn.bias, training=False, eps=eps)
        return F.relu6(y)


def get_inputs():
    # Scaled so that both ReLU6 limits are reached.
    return [torch.randn(batch, channels, height, width) * 4.0]


def get_init_inputs():
    return [channels]
