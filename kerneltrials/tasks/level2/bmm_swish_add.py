"""Batched matrix product, Swish, then addition of a third (residual) input."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["bmm", "matmul", "activation", "residual", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 8, "rows": 255, "inner": 256, "cols": 257},
            {"batch": 2, "rows": 767, "inner": 512, "cols": 511},
            {"batch": 48, "rows": 100, "inner": 96, "cols": 200},
        ],
        "gpu": [
            {"batch": 64, "rows": 1024, "inner": 1023, "cols": 1024},
            {"batch": 8, "rows": 4095, "inner": 4096, "cols": 2048},
            {"batch": 512, "rows": 255, "inner": 256, "cols": 511},
        ],
    },
    "ranges": {"batch": [1, 1024], "rows": [1, 8192], "inner": [8, 8192], "cols": [1, 8192]},
    "multiple_of": {},
    "backward": False,
}

batch = 8
rows = 255
inner = 256
cols = 257


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        y = F.silu(torch.bmm(a, b))  # (batch, rows, cols)
        return y + residual


def get_inputs():
    a = torch.randn(batch, rows, inner)
    b = torch.randn(batch, inner, cols) * (2.0 / inner ** 0.5)
    residual = torch.randn(batch, rows, cols)
    return [a, b, residual]


def get_init_inputs():
    return []
