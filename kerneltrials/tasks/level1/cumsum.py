"""Inclusive prefix sum along the last dimension (memory-bound scan)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["scan", "cumsum", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"rows": 2039, "cols": 4093}, {"rows": 64, "cols": 131071}, {"rows": 32749, "cols": 255}],
        "gpu": [{"rows": 8191, "cols": 16384}, {"rows": 256, "cols": 1048575}, {"rows": 262143, "cols": 511}],
    },
    "ranges": {"rows": [1, 524288], "cols": [1, 2097152]},
    "multiple_of": {},
    "backward": False,
}

rows = 2039
cols = 4093


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cumsum(x, dim=1)  # (rows, cols)


def get_inputs():
    # A per-row drift makes the running sums grow, so the scan order really matters.
    drift = torch.randn(rows, 1) * 0.05
    return [torch.randn(rows, cols) + drift]


def get_init_inputs():
    return []
