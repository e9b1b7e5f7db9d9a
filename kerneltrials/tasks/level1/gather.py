"""Gather along dim 1 with random (repeating) indices: out[i, j] = x[i, index[i, j]] (memory-bound)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["gather", "indexing", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"rows": 1021, "cols": 4093, "picks": 2047},
                {"rows": 64, "cols": 65521, "picks": 32767},
                {"rows": 8191, "cols": 255, "picks": 511}],
        "gpu": [{"rows": 16383, "cols": 16384, "picks": 4095}, {"rows": 1024, "cols": 262143, "picks": 65536},
                {"rows": 262143, "cols": 255, "picks": 511}],
    },
    "ranges": {"rows": [1, 524288], "cols": [1, 524288], "picks": [1, 131072]},
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
        return torch.gather(x, 1, index)  # (rows, cols), (rows, picks) int64 -> (rows, picks)


def get_inputs():
    x = torch.randn(rows, cols) * 2.0
    index = torch.randint(0, cols, (rows, picks))
    return [x, index]


def get_init_inputs():
    return []
