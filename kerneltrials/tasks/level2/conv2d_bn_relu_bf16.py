"""bfloat16 3x3 convolution, inference-mode batch norm, ReLU (a CNN stem block in mixed-precision inference)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv2d", "batchnorm", "activation", "low-precision", "compute-bound"],
    "dtype": "bfloat16",
    "configs": {
        "cpu": [
            {"batch": 16, "in_channels": 16, "out_channels": 32, "height": 63, "width": 65},
            {"batch": 2, "in_channels": 3, "out_channels": 64, "height": 95, "width": 97},
            {"batch": 64, "in_channels": 32, "out_channels": 24, "height": 25, "width": 27},
        ],
        "gpu": [
            {"batch": 64, "in_channels": 64, "out_channels": 128, "height": 127, "width": 129},
            {"batch": 32, "in_channels": 3, "out_channels": 64, "height": 255, "width": 257},
            {"batch": 128, "in_channels": 128, "out_channels": 96, "height": 63, "width": 65},
        ],
    },
    "ranges": {"batch": [1, 256], "in_channels": [1, 512], "out_channels": [1, 512],
               "height": [3, 1024], "width": [3, 1024]},
    "multiple_of": {},
    "backward": False,
}

batch = 16
in_channels = 16
out_channels = 32
height = 63
width = 65
eps = 1e-5


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1)
        self.bn = nn.BatchNorm2d(out_channels, eps=eps)
        with torch.no_grad():  # trained-looking statistics, so the norm is not an identity
            self.bn.running_mean.normal_(0.0, 0.3)
            self.bn.running_var.uniform_(0.3, 2.0)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.normal_(0.0, 0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)  # (batch, out_channels, height, width)
        y = F.batch_norm(y, self.bn.running_mean, self.bn.running_var, self.bn.weight,
                         self.bn.bias, training=False, eps=eps)
        return torch.relu(y)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
