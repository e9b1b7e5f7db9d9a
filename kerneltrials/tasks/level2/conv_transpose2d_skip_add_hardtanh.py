"""U-Net decoder merge: 2x2 stride-2 transposed convolution, add the encoder skip tensor, hardtanh."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv-transpose2d", "upsampling", "residual", "clamp", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 4, "in_channels": 64, "out_channels": 32, "height": 31, "width": 33},
            {"batch": 1, "in_channels": 128, "out_channels": 64, "height": 47, "width": 45},
            {"batch": 16, "in_channels": 32, "out_channels": 32, "height": 17, "width": 15},
        ],
        "gpu": [
            {"batch": 32, "in_channels": 256, "out_channels": 128, "height": 63, "width": 65},
            {"batch": 8, "in_channels": 128, "out_channels": 64, "height": 255, "width": 255},
            {"batch": 128, "in_channels": 512, "out_channels": 256, "height": 31, "width": 31},
        ],
    },
    "ranges": {"batch": [1, 512], "in_channels": [1, 1024], "out_channels": [1, 1024],
               "height": [1, 512], "width": [1, 512]},
    "multiple_of": {},
    "backward": False,
}

batch = 4
in_channels = 64
out_channels = 32
height = 31
width = 33


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.up = nn.ConvTranspose2d(in_channels, out_channels, kernel_size=2, stride=2)

    def forward(self, x: torch.Tensor, skip: torch.Tensor) -> torch.Tensor:
        y = self.up(x) + skip  # (batch, out_channels, 2 * height, 2 * width)
        return F.hardtanh(y, -1.5, 1.5)


def get_inputs():
    x = torch.randn(batch, in_channels, height, width)
    skip = torch.randn(batch, out_channels, 2 * height, 2 * width)
    return [x, skip]


def get_init_inputs():
    return [in_channels, out_channels]
