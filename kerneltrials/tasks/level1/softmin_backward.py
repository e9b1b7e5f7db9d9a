"""Softmin over the last dimension (softmax of -x), forward and backward (memory-bound)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 1,
    "tags": ["softmax", "softmin", "backward", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"rows": 2039, "cols": 2047}, {"rows": 32, "cols": 131071}, {"rows": 32749, "cols": 127}],
        "gpu": [{"rows": 16383, "cols": 8192}, {"rows": 512, "cols": 262143}, {"rows": 262143, "cols": 511}],
    },
    "ranges": {"rows": [1, 524288], "cols": [1, 1048576]},
    "multiple_of": {},
    "backward": True,
}

rows = 2039
cols = 2047


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.softmin(x, dim=1)  # (rows, cols)


def get_inputs():
    # Per-row temperatures: peaked and flat rows; large negative values need the stable form.
    return [torch.randn(rows, cols) * (torch.rand(rows, 1) * 6.0 + 0.5) + torch.randn(rows, 1) * 20.0]


def get_init_inputs():
    return []
