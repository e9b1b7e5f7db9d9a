"""Linear interpolation start + weight * (end - start) with a tensor weight (memory-bound)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["elementwise", "lerp", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"rows": 1021, "cols": 4093}, {"rows": 31, "cols": 131071}, {"rows": 16381, "cols": 511}],
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

    def forward(self, start: torch.Tensor, end: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        return torch.lerp(start, end, weight)  # (rows, cols) x3


def get_inputs():
    start = torch.randn(rows, cols) * 2.0
    end = torch.randn(rows, cols) + 1.0
    # Weights in [-0.5, 1.5]: interpolation and extrapolation on both sides.
    weight = torch.rand(rows, cols) * 2.0 - 0.5
    return [start, end, weight]


def get_init_inputs():
    return []
