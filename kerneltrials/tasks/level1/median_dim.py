"""Median along the last dimension (the lower median for even lengths) (memory-bound selection)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["median", "selection", "reduction", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"rows": 1021, "cols": 4093}, {"rows": 16, "cols": 131072}, {"rows": 16381, "cols": 255}],
        "gpu": [{"rows": 16383, "cols": 8192}, {"rows": 256, "cols": 1048575}, {"rows": 262143, "cols": 511}],
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
        return torch.median(x, dim=1).values  # (rows, cols) -> (rows,)


def get_inputs():
    # Skewed rows (a heavy tail on one side): the median differs clearly from the mean.
    base = torch.randn(rows, cols)
    return [base + torch.randn(rows, 1) * 2.0 + torch.relu(base) ** 2 * torch.rand(rows, 1)]


def get_init_inputs():
    return []
