"""Strided 2x2 convolution (patchify downsample), LayerNorm over channels at each pixel, GELU."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv2d", "strided", "layernorm", "activation", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 8, "in_channels": 64, "out_channels": 128, "height": 64, "width": 62},
            {"batch": 2, "in_channels": 96, "out_channels": 192, "height": 112, "width": 96},
            {"batch": 32, "in_channels": 48, "out_channels": 96, "height": 30, "width": 26},
        ],
        "gpu": [
            {"batch": 128, "in_channels": 96, "out_channels": 192, "height": 112, "width": 112},
            {"batch": 64, "in_channels": 192, "out_channels": 384, "height": 56, "width": 56},
            {"batch": 256, "in_channels": 384, "out_channels": 768, "height": 28, "width": 30},
        ],
    },
    "ranges": {"batch": [1, 512], "in_channels": [1, 1024], "out_channels": [2, 1024],
               "height": [2, 1024], "width": [2, 1024]},
    "multiple_of": {"height": 2, "width": 2},
    "backward": False,
}

batch = 8
in_channels = 64
out_channels = 128
height = 64
width = 62
eps = 1e-6


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=2, stride=2)
        self.norm = nn.LayerNorm(out_channels, eps=eps)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.normal_(0.0, 0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x).permute(0, 2, 3, 1)  # (batch, height / 2, width / 2, out_channels)
        y = F.gelu(self.norm(y))
        return y.permute(0, 3, 1, 2)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
