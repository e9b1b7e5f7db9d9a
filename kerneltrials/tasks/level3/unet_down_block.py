"""U-Net encoder stage: two (conv3x3, BN, ReLU) layers, then 2x2 max pooling; returns the pooled map and the skip tensor."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 3,
    "tags": ["cnn", "unet", "conv2d", "batchnorm", "pooling", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 4, "in_channels": 16, "out_channels": 32, "height": 48, "width": 50},
            {"batch": 2, "in_channels": 3, "out_channels": 16, "height": 128, "width": 96},
            {"batch": 8, "in_channels": 32, "out_channels": 48, "height": 22, "width": 20},
        ],
        "gpu": [
            {"batch": 32, "in_channels": 64, "out_channels": 128, "height": 128, "width": 126},
            {"batch": 8, "in_channels": 3, "out_channels": 64, "height": 512, "width": 510},
            {"batch": 64, "in_channels": 256, "out_channels": 512, "height": 32, "width": 32},
        ],
    },
    "ranges": {"batch": [1, 256], "in_channels": [1, 1024], "out_channels": [1, 1024],
               "height": [2, 1024], "width": [2, 1024]},
    "multiple_of": {"height": 2, "width": 2},
    "backward": False,
}

batch = 4
in_channels = 16
out_channels = 32
height = 48
width = 50


def conv_bn_relu(in_channels: int, out_channels: int) -> nn.Sequential:
    bn = nn.BatchNorm2d(out_channels)
    with torch.no_grad():
        bn.running_mean.normal_(0.0, 0.3)
        bn.running_var.uniform_(0.3, 2.0)
        bn.weight.uniform_(0.5, 1.5)
        bn.bias.normal_(0.0, 0.3)
    return nn.Sequential(nn.Conv2d(in_channels, out_channels, 3, padding=1, bias=False), bn,
                         nn.ReLU())


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.block1 = conv_bn_relu(in_channels, out_channels)
        self.block2 = conv_bn_relu(out_channels, out_channels)

    def forward(self, x: torch.Tensor):
        skip = self.block2(self.block1(x))  # (batch, out_channels, h, w)
        return F.max_pool2d(skip, 2), skip


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
