"""Minimum over the last dimension, values and argmin indices (memory-bound reduction)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["reduction", "min", "argmin", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"rows": 1021, "cols": 4093}, {"rows": 32, "cols": 131071}, {"rows": 16381, "cols": 255}],
        "gpu": [{"rows": 16383, "cols": 8192}, {"rows": 512, "cols": 262143}, {"rows": 262143, "cols": 511}],
    },
    "ranges": {"rows": [1, 524288], "cols": [1, 1048576]},
    "multiple_of": {},
    "backward": False,
}

rows = 1021
cols = 4093


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        values, indices = torch.min(x, dim=1)
        return values, indices  # (rows,), (rows,) int64


def get_inputs():
    # Continuous values: ties (whose index would be ambiguous) have probability ~0.
    return [torch.randn(rows, cols) * 2.0 + torch.randn(rows, 1)]


def get_init_inputs():
    return []
