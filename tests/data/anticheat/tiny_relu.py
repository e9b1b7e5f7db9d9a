"""ReLU on a small 2-D tensor: the strict (level-1) task of the anti-cheat corpus."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["activation", "elementwise"],
    "dtype": "float32",
    "configs": {"cpu": [{"rows": 64, "cols": 257}], "gpu": [{"rows": 64, "cols": 257}]},
    "ranges": {"rows": [8, 128], "cols": [8, 512]},
    "multiple_of": {},
    "backward": False,
}

rows = 64
cols = 257


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)  # (rows, cols)


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
