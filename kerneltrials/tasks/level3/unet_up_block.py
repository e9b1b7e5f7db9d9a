"""U-Net decoder stage: 2x transposed-conv upsampling, concatenation with the encoder skip, two (conv3x3, GroupNorm, SiLU) layers."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 3,
    "tags": ["cnn", "unet", "conv-transpose2d", "conv2d", "groupnorm", "concat", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 2, "in_channels": 64, "out_channels": 32, "height": 24, "width": 25},
            {"batch": 1, "in_channels": 32, "out_channels": 16, "height": 47, "width": 49},
            {"batch": 8, "in_channels": 96, "out_channels": 48, "height": 11, "width": 13},
        ],
        "gpu": [
            {"batch": 32, "in_channels": 256, "out_channels": 128, "height": 64, "width": 64},
            {"batch": 8, "in_channels": 128, "out_channels": 64, "height": 255, "width": 255},
            {"batch": 64, "in_channels": 512, "out_channels": 256, "height": 32, "width": 30},
        ],
    },
    "ranges": {"batch": [1, 256], "in_channels": [2, 2048], "out_channels": [8, 1024],
               "height": [1, 512], "width": [1, 512]},
    "multiple_of": {"out_channels": 8},
    "backward": False,
}

batch = 2
in_channels = 64
out_channels = 32
height = 24
width = 25
groups = 8


def conv_norm(in_channels: int, out_channels: int, groups: int) -> nn.ModuleList:
    norm = nn.GroupNorm(groups, out_channels)
    with torch.no_grad():
        norm.weight.uniform_(0.5, 1.5)
        norm.bias.normal_(0.0, 0.3)
    return nn.ModuleList([nn.Conv2d(in_channels, out_channels, 3, padding=1), norm])


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, groups: int):
        super().__init__()
        self.up = nn.ConvTranspose2d(in_channels, out_channels, kernel_size=2, stride=2)
        self.conv1, self.norm1 = conv_norm(2 * out_channels, out_channels, groups)
        self.conv2, self.norm2 = conv_norm(out_channels, out_channels, groups)

    def forward(self, x: torch.Tensor, skip: torch.Tensor) -> torch.Tensor:
        y = torch.cat([self.up(x), skip], dim=1)  # (batch, 2 * out_channels, 2h, 2w)
        y = F.silu(self.norm1(self.conv1(y)))
        return F.silu(self.norm2(self.conv2(y)))  # (batch, out_channels, 2h, 2w)


def get_inputs():
    x = torch.randn(batch, in_channels, height, width)
    skip = torch.randn(batch, out_channels, 2 * height, 2 * width) * 1.5
    return [x, skip]


def get_init_inputs():
    return [in_channels, out_channels, groups]
