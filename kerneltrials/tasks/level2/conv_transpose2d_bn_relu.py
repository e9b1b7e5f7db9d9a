"""DCGAN generator block: 4x4 stride-2 transposed convolution, batch norm (running statistics), ReLU, forward and backward."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv-transpose2d", "upsampling", "batchnorm", "activation", "backward",
             "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 8, "in_channels": 64, "out_channels": 32, "height": 15, "width": 17},
            {"batch": 4, "in_channels": 32, "out_channels": 16, "height": 47, "width": 49},
            {"batch": 16, "in_channels": 128, "out_channels": 64, "height": 7, "width": 9},
        ],
        "gpu": [
            {"batch": 128, "in_channels": 256, "out_channels": 128, "height": 31, "width": 33},
            {"batch": 32, "in_channels": 128, "out_channels": 64, "height": 127, "width": 129},
            {"batch": 512, "in_channels": 512, "out_channels": 256, "height": 15, "width": 15},
        ],
    },
    "ranges": {"batch": [1, 1024], "in_channels": [1, 1024], "out_channels": [1, 1024],
               "height": [1, 512], "width": [1, 512]},
    "multiple_of": {},
    "backward": True,
}

batch = 8
in_channels = 64
out_channels = 32
height = 15
width = 17
eps = 1e-5


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.deconv = nn.ConvTranspose2d(in_channels, out_channels, kernel_size=4, stride=2,
                                         padding=1, bias=False)
        self.bn = nn.BatchNorm2d(out_channels, eps=eps)
        with torch.no_grad():
            self.bn.running_mean.normal_(0.0, 0.3)
            self.bn.running_var.uniform_(0.3, 2.0)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.normal_(0.0, 0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.deconv(x)  # (batch, out_channels, 2 * height, 2 * width)
        y = F.batch_norm(y, self.bn.running_mean, self.bn.running_var, self.bn.weight,
                         self.bn.bias, training=False, eps=eps)
        return torch.relu(y)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
