"""Batched matrix product, scaled, plus an additive bias tensor, then GELU."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["bmm", "matmul", "activation", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 8, "rows": 255, "inner": 256, "cols": 257},
            {"batch": 3, "rows": 500, "inner": 640, "cols": 320},
            {"batch": 64, "rows": 96, "inner": 77, "cols": 191},
        ],
        "gpu": [
            {"batch": 64, "rows": 1023, "inner": 1024, "cols": 1025},
            {"batch": 16, "rows": 2047, "inner": 4096, "cols": 2048},
            {"batch": 512, "rows": 256, "inner": 77, "cols": 513},
        ],
    },
    "ranges": {"batch": [1, 1024], "rows": [1, 8192], "inner": [4, 8192], "cols": [1, 8192]},
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

    def forward(self, a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        y = torch.bmm(a, b) / math.sqrt(a.shape[2])  # (batch, rows, cols)
        return F.gelu(y + bias)


def get_inputs():
    a = torch.randn(batch, rows, inner)
    b = torch.randn(batch, inner, cols) * 2.0
    bias = torch.randn(batch, rows, cols) * 0.5
    return [a, b, bias]


def get_init_inputs():
    return []
