"""Select columns by index: out = x[:, index] with repeated, unsorted indices (memory-bound)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["indexing", "index_select", "gather", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"rows": 1021, "cols": 4093, "picks": 2047},
                {"rows": 32, "cols": 131071, "picks": 65521},
                {"rows": 16381, "cols": 255, "picks": 383}],
        "gpu": [{"rows": 16383, "cols": 16384, "picks": 8191},
                {"rows": 512, "cols": 524287, "picks": 262143},
                {"rows": 262143, "cols": 255, "picks": 511}],
    },
    "ranges": {"rows": [1, 524288], "cols": [1, 1048576], "picks": [1, 1048576]},
    "multiple_of": {},
    "backward": False,
}

rows = 1021
cols = 4093
picks = 2047


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
        return torch.index_select(x, 1, index)  # (rows, cols), (picks,) int64 -> (rows, picks)


def get_inputs():
    x = torch.randn(rows, cols) * 2.0
    index = torch.randint(0, cols, (picks,))  # unsorted, with repeats
    return [x, index]


def get_init_inputs():
    return []
