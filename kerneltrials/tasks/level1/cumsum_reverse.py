"""Reverse (suffix) cumulative sum along the last dimension: out[i, j] = sum_{k >= j} x[i, k]."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["scan", "cumsum", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"rows": 1021, "cols": 4093}, {"rows": 32, "cols": 131071}, {"rows": 16381, "cols": 255}],
        "gpu": [{"rows": 8191, "cols": 16384}, {"rows": 256, "cols": 1048575}, {"rows": 262143, "cols": 511}],
    },
    "ranges": {"rows": [1, 524288], "cols": [1, 2097152]},
    "multiple_of": {},
    "backward": False,
}

rows = 1021
cols = 4093


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # A suffix scan, as in discounted returns or reverse-time RNN losses: (rows, cols)
        return torch.flip(torch.cumsum(torch.flip(x, dims=[1]), dim=1), dims=[1])


def get_inputs():
    drift = torch.randn(rows, 1) * 0.05
    return [torch.randn(rows, cols) + drift]


def get_init_inputs():
    return []
