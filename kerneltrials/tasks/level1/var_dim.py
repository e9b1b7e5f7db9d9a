"""Unbiased variance over the last dimension, on data with a large mean (memory-bound reduction).

The offset makes a one-pass E[x^2] - E[x]^2 in float32 lose most digits: a stable
(two-pass or Welford) algorithm is needed.
"""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["reduction", "variance", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"rows": 1021, "cols": 4093}, {"rows": 32, "cols": 131071}, {"rows": 16381, "cols": 255}],
        "gpu": [{"rows": 16383, "cols": 8192}, {"rows": 512, "cols": 262143}, {"rows": 262143, "cols": 511}],
    },
    "ranges": {"rows": [1, 524288], "cols": [2, 1048576]},
    "multiple_of": {},
    "backward": False,
}

rows = 1021
cols = 4093


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.var(x, dim=1, correction=1)  # (rows, cols) -> (rows,)


def get_inputs():
    offset = torch.randn(rows, 1) * 100.0
    scale = torch.rand(rows, 1) * 3.0 + 0.2
    return [torch.randn(rows, cols) * scale + offset]


def get_init_inputs():
    return []
