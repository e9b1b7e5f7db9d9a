"""3x3 convolution, instance normalisation, leaky ReLU (a style-transfer / GAN generator block)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv2d", "instancenorm", "activation", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 12, "in_channels": 16, "out_channels": 32, "height": 63, "width": 65},
            {"batch": 3, "in_channels": 32, "out_channels": 48, "height": 97, "width": 95},
            {"batch": 48, "in_channels": 12, "out_channels": 24, "height": 31, "width": 33},
        ],
        "gpu": [
            {"batch": 32, "in_channels": 64, "out_channels": 128, "height": 127, "width": 129},
            {"batch": 8, "in_channels": 128, "out_channels": 96, "height": 255, "width": 257},
            {"batch": 128, "in_channels": 32, "out_channels": 64, "height": 63, "width": 65},
        ],
    },
    "ranges": {"batch": [1, 256], "in_channels": [1, 512], "out_channels": [1, 512],
               "height": [3, 1024], "width": [3, 1024]},
    "multiple_of": {},
    "backward": False,
}

batch = 12
in_channels = 16
out_channels = 32
height = 63
width = 65
negative_slope = 0.2


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1, bias=False)
        # no conv bias: the normalisation below would cancel it

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)  # (batch, out_channels, height, width)
        y = F.instance_norm(y, eps=1e-5)
        return F.leaky_relu(y, negative_slope)


def get_inputs():
    x = torch.randn(batch, in_channels, height, width)
    return [x * (0.5 + torch.rand(batch, 1, 1, 1) * 2.0) + torch.randn(batch, in_channels, 1, 1)]


def get_init_inputs():
    return [in_channels, out_channels]
