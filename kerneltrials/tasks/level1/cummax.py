"""Running maximum along the last dimension, values and indices (memory-bound scan)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["scan", "cummax", "memory-bound"],
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

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        values, indices = torch.cummax(x, dim=1)
        return values, indices  # (rows, cols), (rows, cols) int64


def get_inputs():
    # An upward drift keeps producing new maxima late in each row; continuous values, no ties.
    drift = torch.linspace(0.0, 6.0, cols).view(1, cols) * torch.rand(rows, 1)
    return [torch.randn(rows, cols) + drift - 3.0]


def get_init_inputs():
    return []
