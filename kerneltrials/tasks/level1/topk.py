"""Top-k values along the last dimension, sorted descending (memory-bound selection)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["topk", "selection", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"rows": 1021, "cols": 4093, "k": 64},
                {"rows": 32, "cols": 131071, "k": 1023},
                {"rows": 16381, "cols": 255, "k": 7}],
        "gpu": [{"rows": 16383, "cols": 16384, "k": 128},
                {"rows": 512, "cols": 262143, "k": 2047},
                {"rows": 262143, "cols": 511, "k": 9}],
    },
    "ranges": {"rows": [1, 524288], "cols": [16, 1048576], "k": [1, 4096]},
    "multiple_of": {},
    "backward": False,
}

rows = 1021
cols = 4093
k = 64


class Model(nn.Module):
    def __init__(self, k: int):
        super().__init__()
        self.k = k

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.topk(x, self.k, dim=1, largest=True, sorted=True).values  # (rows, k)


def get_inputs():
    # Continuous values (no ties) with per-row offsets and scales.
    return [torch.randn(rows, cols) * (torch.rand(rows, 1) * 3.0 + 0.1) + torch.randn(rows, 1)]


def get_init_inputs():
    return [k]
