"""Tanh over a 2-D activation tensor (memory-bound elementwise, transcendental)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["activation", "elementwise", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"rows": 1531, "cols": 4093}, {"rows": 64, "cols": 131071}, {"rows": 6001, "cols": 767}],
        "gpu": [{"rows": 8191, "cols": 16384}, {"rows": 1024, "cols": 262143}, {"rows": 32767, "cols": 3071}],
    },
    "ranges": {"rows": [1, 65536], "cols": [1, 524288]},
    "multiple_of": {},
    "backward": False,
}

rows = 1531
cols = 4093


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(x)  # (rows, cols)


def get_inputs():
    # Mostly the curved region around 0, with a tail that saturates to +-1.
    return [torch.randn(rows, cols) * 1.5 + torch.randn(rows, 1) * 0.5]


def get_init_inputs():
    return []
