"""GroupNorm with 8 groups and a learned affine over NCHW (memory-bound norm), in bfloat16.

The bfloat16 variant of L1/groupnorm: inputs and parameters are cast to bfloat16 by the
harness, the output is bfloat16, and outputs are compared with the bfloat16 tolerance (1e-2).
"""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["normalization", "groupnorm", "low-precision", "memory-bound"],
    "dtype": "bfloat16",
    "configs": {
        "cpu": [{"batch": 48, "channels": 64, "height": 63, "width": 65},
                {"batch": 12, "channels": 24, "height": 223, "width": 225},
                {"batch": 192, "channels": 256, "height": 15, "width": 13}],
        "gpu": [{"batch": 32, "channels": 256, "height": 111, "width": 113},
                {"batch": 16, "channels": 64, "height": 447, "width": 449},
                {"batch": 128, "channels": 1024, "height": 15, "width": 15}],
    },
    "ranges": {"batch": [1, 512], "channels": [8, 2048], "height": [1, 1024], "width": [1, 1024]},
    "multiple_of": {"channels": 8},  # channels must divide into `groups`
    "backward": False,
}

batch = 48
channels = 64
height = 63
width = 65
groups = 8
eps = 1e-5


class Model(nn.Module):
    def __init__(self, groups: int, channels: int, eps: float):
        super().__init__()
        self.norm = nn.GroupNorm(groups, channels, eps=eps)
        with torch.no_grad():
            self.norm.weight.copy_(1.0 + 0.5 * torch.randn(channels))
            self.norm.bias.copy_(0.5 * torch.randn(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)  # (batch, channels, height, width)


def get_inputs():
    # Channel-dependent offsets make per-group statistics differ.
    offset = torch.randn(1, channels, 1, 1) * 2.0
    return [torch.randn(batch, channels, height, width) * 1.5 + offset]


def get_init_inputs():
    return [groups, channels, eps]
