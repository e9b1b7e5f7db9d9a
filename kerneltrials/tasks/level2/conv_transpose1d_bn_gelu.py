"""Transposed 1-D convolution (2x upsampling, a vocoder/decoder stage), inference batch norm, GELU."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv-transpose1d", "upsampling", "batchnorm", "activation", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 4, "in_channels": 128, "out_channels": 64, "length": 511},
            {"batch": 1, "in_channels": 256, "out_channels": 128, "length": 1001},
            {"batch": 16, "in_channels": 64, "out_channels": 96, "length": 200},
        ],
        "gpu": [
            {"batch": 64, "in_channels": 512, "out_channels": 256, "length": 2047},
            {"batch": 16, "in_channels": 256, "out_channels": 256, "length": 8191},
            {"batch": 256, "in_channels": 128, "out_channels": 192, "length": 1025},
        ],
    },
    "ranges": {"batch": [1, 512], "in_channels": [1, 1024], "out_channels": [1, 1024],
               "length": [1, 65536]},
    "multiple_of": {},
    "backward": False,
}

batch = 4
in_channels = 128
out_channels = 64
length = 511
eps = 1e-5


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.deconv = nn.ConvTranspose1d(in_channels, out_channels, kernel_size=4, stride=2,
                                         padding=1)
        self.bn = nn.BatchNorm1d(out_channels, eps=eps)
        with torch.no_grad():
            self.bn.running_mean.normal_(0.0, 0.3)
            self.bn.running_var.uniform_(0.3, 2.0)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.normal_(0.0, 0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.bn(self.deconv(x))  # (batch, out_channels, 2 * length)
        return F.gelu(y)


def get_inputs():
    return [torch.randn(batch, in_channels, length)]


def get_init_inputs():
    return [in_channels, out_channels]
