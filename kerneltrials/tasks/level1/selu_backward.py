"""SELU (scaled ELU with fixed alpha and scale), forward and backward (memory-bound)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 1,
    "tags": ["activation", "elementwise", "backward", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"rows": 1021, "cols": 2047}, {"rows": 8, "cols": 262139}, {"rows": 4001, "cols": 499}],
        "gpu": [{"rows": 8191, "cols": 16384}, {"rows": 512, "cols": 524287}, {"rows": 65535, "cols": 1535}],
    },
    "ranges": {"rows": [1, 131072], "cols": [1, 1048576]},
    "multiple_of": {},
    "backward": True,
}

rows = 1021
cols = 2047


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.selu(x)  # (rows, cols)


def get_inputs():
    return [torch.randn(rows, cols) * 2.0 - 0.5]


def get_init_inputs():
    return []
