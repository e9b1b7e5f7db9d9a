"""ProGAN-style upsampling: 3x3 stride-2 transposed convolution, pixel-wise feature normalisation, leaky ReLU (0.2)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv-transpose2d", "upsampling", "normalization", "activation", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 8, "in_channels": 64, "out_channels": 64, "height": 16, "width": 18},
            {"batch": 2, "in_channels": 32, "out_channels": 32, "height": 63, "width": 47},
            {"batch": 32, "in_channels": 128, "out_channels": 48, "height": 8, "width": 10},
        ],
        "gpu": [
            {"batch": 64, "in_channels": 256, "out_channels": 256, "height": 32, "width": 32},
            {"batch": 16, "in_channels": 128, "out_channels": 128, "height": 127, "width": 129},
            {"batch": 256, "in_channels": 512, "out_channels": 512, "height": 15, "width": 17},
        ],
    },
    "ranges": {"batch": [1, 1024], "in_channels": [1, 1024], "out_channels": [1, 1024],
               "height": [1, 512], "width": [1, 512]},
    "multiple_of": {},
    "backward": False,
}

batch = 8
in_channels = 64
out_channels = 64
height = 16
width = 18
eps = 1e-8


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.deconv = nn.ConvTranspose2d(in_channels, out_channels, kernel_size=3, stride=2,
                                         padding=1, output_padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.deconv(x)  # (batch, out_channels, 2 * height, 2 * width)
        y = y * torch.rsqrt(y.pow(2).mean(dim=1, keepdim=True) + eps)
        return F.leaky_relu(y, 0.2)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
