"""Batched matrix product, temperature scaling, log-sum-exp over the last dimension (a soft maximum per row)."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["bmm", "matmul", "reduction", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 8, "rows": 255, "inner": 128, "cols": 511},
            {"batch": 2, "rows": 1023, "inner": 512, "cols": 300},
            {"batch": 64, "rows": 63, "inner": 64, "cols": 1001},
        ],
        "gpu": [
            {"batch": 64, "rows": 2047, "inner": 128, "cols": 2048},
            {"batch": 8, "rows": 8191, "inner": 1024, "cols": 4096},
            {"batch": 512, "rows": 255, "inner": 64, "cols": 8191},
        ],
    },
    "ranges": {"batch": [1, 1024], "rows": [1, 16384], "inner": [8, 4096], "cols": [2, 16384]},
    "multiple_of": {},
    "backward": False,
}

batch = 8
rows = 255
inner = 128
cols = 511
temperature = 0.5


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        scores = torch.bmm(a, b) / temperature  # (batch, rows, cols)
        return torch.logsumexp(scores, dim=-1)  # (batch, rows)


def get_inputs():
    a = torch.randn(batch, rows, inner)
    b = torch.randn(batch, inner, cols) / inner ** 0.5
    return [a, b]


def get_init_inputs():
    return []
