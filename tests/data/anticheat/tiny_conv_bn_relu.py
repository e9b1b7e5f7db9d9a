"""3x3 convolution, inference batch norm, ReLU on small shapes: a mixed (level-2) task."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv2d", "batchnorm", "activation"],
    "dtype": "float32",
    "configs": {"cpu": [{"batch": 2, "in_channels": 3, "out_channels": 8, "height": 17, "width": 19}],
                "gpu": [{"batch": 2, "in_channels": 3, "out_channels": 8, "height": 17, "width": 19}]},
    "ranges": {"batch": [1, 8], "in_channels": [1, 16], "out_channels": [1, 16],
               "height": [3, 64], "width": [3, 64]},
    "multiple_of": {},
    "backward": False,
}

batch = 2
in_channels = 3
out_channels = 8
height = 17
width = 19
eps = 1e-5


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1)
        self.bn = nn.BatchNorm2d(out_channels, eps=eps)
        with torch.no_grad():
            self.bn.running_mean.normal_(0.0, 0.3)
            self.bn.running_var.uniform_(0.3, 2.0)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.normal_(0.0, 0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)  # (batch, out_channels, height, width)
        y = F.batch_norm(y, self.bn.running_mean, self.bn.running_var, self.bn.weight,
                         self.bn.bias, training=False, eps=eps)
        return torch.relu(y)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
