"""Softplus with beta and a linear threshold, forward and backward (memory-bound elementwise)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 1,
    "tags": ["activation", "elementwise", "backward", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"rows": 509, "cols": 4093}, {"rows": 16, "cols": 131071}, {"rows": 2999, "cols": 511}],
        "gpu": [{"rows": 8191, "cols": 16384}, {"rows": 1024, "cols": 262143}, {"rows": 32767, "cols": 3071}],
    },
    "ranges": {"rows": [1, 65536], "cols": [1, 524288]},
    "multiple_of": {},
    "backward": True,
}

rows = 509
cols = 4093
beta = 1.5
threshold = 10.0


class Model(nn.Module):
    def __init__(self, beta: float, threshold: float):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Where beta * x > threshold softplus is the identity (and its gradient is 1).
        return F.softplus(x, beta=self.beta, threshold=self.threshold)  # (rows, cols)


def get_inputs():
    # Wide spread: about 5% of the elements fall in the linear (thresholded) branch.
    return [torch.randn(rows, cols) * 4.0]


def get_init_inputs():
    return [beta, threshold]
