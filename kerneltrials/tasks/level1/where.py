"""Elementwise select: torch.where(mask, x, y) with a boolean mask (memory-bound)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["elementwise", "where", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"rows": 1021, "cols": 4093}, {"rows": 31, "cols": 131071}, {"rows": 8191, "cols": 255}],
        "gpu": [{"rows": 16383, "cols": 16384}, {"rows": 1024, "cols": 262143}, {"rows": 262143, "cols": 511}],
    },
    "ranges": {"rows": [1, 524288], "cols": [1, 524288]},
    "multiple_of": {},
    "backward": False,
}

rows = 1021
cols = 4093


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, mask: torch.Tensor, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.where(mask, x, y)  # (rows, cols) bool, (rows, cols), (rows, cols)


def get_inputs():
    # Irregular mask (density varies per row): no branch-free shortcut on a fixed pattern.
    density = torch.rand(rows, 1)
    mask = torch.rand(rows, cols) < density
    x = torch.randn(rows, cols) * 2.0
    y = torch.randn(rows, cols) - 1.0
    return [mask, x, y]


def get_init_inputs():
    return []
