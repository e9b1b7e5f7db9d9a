"""ShuffleNet unit core: grouped 1x1 convolution, channel shuffle across groups, inference batch norm, ReLU."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv2d", "grouped", "channel-shuffle", "batchnorm", "activation", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 8, "groups": 4, "in_per_group": 60, "out_per_group": 60, "height": 27, "width": 29},
            {"batch": 2, "groups": 8, "in_per_group": 24, "out_per_group": 48, "height": 55, "width": 57},
            {"batch": 32, "groups": 3, "in_per_group": 80, "out_per_group": 40, "height": 13, "width": 15},
        ],
        "gpu": [
            {"batch": 256, "groups": 4, "in_per_group": 68, "out_per_group": 68, "height": 28, "width": 28},
            {"batch": 128, "groups": 8, "in_per_group": 48, "out_per_group": 96, "height": 56, "width": 56},
            {"batch": 512, "groups": 3, "in_per_group": 160, "out_per_group": 160, "height": 14, "width": 14},
        ],
    },
    "ranges": {"batch": [1, 1024], "groups": [2, 16], "in_per_group": [1, 512],
               "out_per_group": [1, 512], "height": [1, 512], "width": [1, 512]},
    "multiple_of": {},
    "backward": False,
}

batch = 8
groups = 4
in_per_group = 60
out_per_group = 60
height = 27
width = 29
eps = 1e-5


class Model(nn.Module):
    def __init__(self, groups: int, in_per_group: int, out_per_group: int):
        super().__init__()
        self.groups = groups
        out_channels = groups * out_per_group
        self.conv = nn.Conv2d(groups * in_per_group, out_channels, kernel_size=1, groups=groups,
                              bias=False)
        self.bn = nn.BatchNorm2d(out_channels, eps=eps)
        with torch.no_grad():
            self.bn.running_mean.normal_(0.0, 0.3)
            self.bn.running_var.uniform_(0.3, 2.0)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.normal_(0.0, 0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)  # (batch, out_channels, height, width)
        b, c, h, w = y.shape
        y = y.view(b, self.groups, c // self.groups, h, w).transpose(1, 2).reshape(b, c, h, w)
        return F.relu(self.bn(y))


def get_inputs():
    return [torch.randn(batch, groups * in_per_group, height, width)]


def get_init_inputs():
    return [groups, in_per_group, out_per_group]
