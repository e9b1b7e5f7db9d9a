"""Scatter-add along dim 1 with colliding indices: out[i, index[i, j]] += src[i, j] (memory-bound)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["indexing", "scatter", "atomic", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"rows": 1021, "cols": 1021, "sources": 4093},
                {"rows": 16, "cols": 65521, "sources": 131071},
                {"rows": 16381, "cols": 63, "sources": 255}],
        "gpu": [{"rows": 16383, "cols": 4096, "sources": 16384},
                {"rows": 256, "cols": 262143, "sources": 524287},
                {"rows": 262143, "cols": 127, "sources": 511}],
    },
    "ranges": {"rows": [1, 524288], "cols": [1, 1048576], "sources": [1, 1048576]},
    "multiple_of": {},
    "backward": False,
}

rows = 1021
cols = 1021
sources = 4093


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, base: torch.Tensor, index: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
        # (rows, cols), (rows, sources) int64, (rows, sources) -> (rows, cols)
        return torch.scatter_add(base, 1, index, src)


def get_inputs():
    base = torch.randn(rows, cols)
    # Skewed targets: low columns receive many contributions (collisions), some none.
    u = torch.rand(rows, sources)
    index = (u * u * cols).long().clamp_(0, cols - 1)
    src = torch.randn(rows, sources) * 0.5 + 0.1
    return [base, index, src]


def get_init_inputs():
    return []
