"""1-D convolution (kernel 5), ReLU, max pooling by 2 (a sequence/audio feature extractor)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["conv1d", "activation", "pooling", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 6, "in_channels": 64, "out_channels": 128, "length": 1001},
            {"batch": 4, "in_channels": 13, "out_channels": 96, "length": 8191},
            {"batch": 64, "in_channels": 128, "out_channels": 64, "length": 257},
        ],
        "gpu": [
            {"batch": 128, "in_channels": 256, "out_channels": 512, "length": 4095},
            {"batch": 32, "in_channels": 80, "out_channels": 512, "length": 32767},
            {"batch": 512, "in_channels": 512, "out_channels": 256, "length": 1001},
        ],
    },
    "ranges": {"batch": [1, 1024], "in_channels": [1, 1024], "out_channels": [1, 1024],
               "length": [8, 65536]},
    "multiple_of": {},
    "backward": False,
}

batch = 6
in_channels = 64
out_channels = 128
length = 1001


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size=5, padding=2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.conv(x))  # (batch, out_channels, length)
        return F.max_pool1d(y, kernel_size=2)  # (batch, out_channels, length // 2)


def get_inputs():
    return [torch.randn(batch, in_channels, length)]


def get_init_inputs():
    return [in_channels, out_channels]
