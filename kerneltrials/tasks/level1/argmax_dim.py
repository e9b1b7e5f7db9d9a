"""Argmax over the last dimension of a 2-D tensor (memory-bound reduction, int64 output)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["reduction", "argmax", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"rows": 1021, "cols": 4093}, {"rows": 32, "cols": 100003}, {"rows": 4999, "cols": 511}],
        "gpu": [{"rows": 16383, "cols": 8192}, {"rows": 512, "cols": 250007}, {"rows": 131071, "cols": 511}],
    },
    "ranges": {"rows": [1, 262144], "cols": [1, 524288]},
    "multiple_of": {},
    "backward": False,
}

rows = 1021
cols = 4093


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.argmax(x, dim=1)  # (rows, cols) -> (rows,) int64


def get_inputs():
    # Continuous values: ties (whose index order would be ambiguous) have probability ~0.
    return [torch.randn(rows, cols) * 2.0 - 0.5]


def get_init_inputs():
    return []
