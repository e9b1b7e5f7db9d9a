"""Ascending sort along the last dimension, values and permutation indices (memory-bound)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["sort", "argsort", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"rows": 127, "cols": 4093}, {"rows": 2, "cols": 131071}, {"rows": 4093, "cols": 127}],
        "gpu": [{"rows": 8191, "cols": 16384}, {"rows": 128, "cols": 1048573}, {"rows": 262143, "cols": 255}],
    },
    "ranges": {"rows": [1, 524288], "cols": [1, 2097152]},
    "multiple_of": {},
    "backward": False,
}

rows = 127
cols = 4093


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        values, indices = torch.sort(x, dim=1)
        return values, indices  # (rows, cols), (rows, cols) int64


def get_inputs():
    # Continuous values: ties (whose order would be ambiguous) have probability ~0.
    return [torch.randn(rows, cols) * 2.0 + torch.randn(rows, 1)]


def get_init_inputs():
    return []
