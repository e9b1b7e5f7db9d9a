"""1x1 (pointwise) convolution, inference-mode batch norm, swish (an MBConv expansion layer)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv2d", "pointwise", "gemm", "batchnorm", "activation", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 16, "in_channels": 32, "out_channels": 96, "height": 55, "width": 57},
            {"batch": 8, "in_channels": 96, "out_channels": 240, "height": 31, "width": 29},
            {"batch": 64, "in_channels": 24, "out_channels": 144, "height": 17, "width": 19},
        ],
        "gpu": [
            {"batch": 128, "in_channels": 32, "out_channels": 192, "height": 111, "width": 113},
            {"batch": 64, "in_channels": 160, "out_channels": 960, "height": 15, "width": 17},
            {"batch": 256, "in_channels": 40, "out_channels": 240, "height": 55, "width": 57},
        ],
    },
    "ranges": {"batch": [1, 512], "in_channels": [1, 1024], "out_channels": [1, 2048],
               "height": [1, 512], "width": [1, 512]},
    "multiple_of": {},
    "backward": False,
}

batch = 16
in_channels = 32
out_channels = 96
height = 55
width = 57
eps = 1e-3


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=1, bias=False)
        self.bn = nn.BatchNorm2d(out_channels, eps=eps)
        with torch.no_grad():  # trained-looking statistics, so the norm is not an identity
            self.bn.running_mean.normal_(0.0, 0.3)
            self.bn.running_var.uniform_(0.2, 2.0)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.normal_(0.0, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)  # (batch, out_channels, height, width)
        y = F.batch_norm(y, self.bn.running_mean, self.bn.running_var, self.bn.weight,
                         self.bn.bias, training=False, eps=eps)
        return F.silu(y)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width) * 2.0]


def get_init_inputs():
    return [in_channels, out_channels]
