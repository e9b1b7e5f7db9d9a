"""Sub-pixel upsampling (ESPCN): 3x3 convolution to r^2 C channels, pixel shuffle (r = 2), PReLU."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv2d", "pixel-shuffle", "upsampling", "activation", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 4, "in_channels": 32, "out_channels": 16, "height": 31, "width": 33},
            {"batch": 1, "in_channels": 64, "out_channels": 32, "height": 47, "width": 49},
            {"batch": 16, "in_channels": 16, "out_channels": 8, "height": 23, "width": 21},
        ],
        "gpu": [
            {"batch": 32, "in_channels": 64, "out_channels": 64, "height": 127, "width": 129},
            {"batch": 8, "in_channels": 128, "out_channels": 64, "height": 255, "width": 255},
            {"batch": 128, "in_channels": 64, "out_channels": 32, "height": 63, "width": 65},
        ],
    },
    "ranges": {"batch": [1, 512], "in_channels": [1, 1024], "out_channels": [1, 256],
               "height": [1, 512], "width": [1, 512]},
    "multiple_of": {},
    "backward": False,
}

batch = 4
in_channels = 32
out_channels = 16
height = 31
width = 33
upscale = 2


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, upscale: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels * upscale ** 2, kernel_size=3, padding=1)
        self.prelu = nn.PReLU(out_channels, init=0.1)
        with torch.no_grad():
            self.prelu.weight.uniform_(0.05, 0.4)
        self.upscale = upscale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.pixel_shuffle(self.conv(x), self.upscale)  # (batch, out_channels, 2h, 2w)
        return self.prelu(y)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, upscale]
