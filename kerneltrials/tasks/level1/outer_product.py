"""Outer product of two vectors, out[i, j] = u[i] * v[j] (memory-bound: one write per element)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["matmul", "outer", "broadcast", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"m": 2047, "n": 4093}, {"m": 64, "n": 131071}, {"m": 32749, "n": 511}],
        "gpu": [{"m": 16383, "n": 16384}, {"m": 1024, "n": 262143}, {"m": 262143, "n": 1023}],
    },
    "ranges": {"m": [1, 1048576], "n": [1, 1048576]},
    "multiple_of": {},
    "backward": False,
}

m = 2047
n = 4093


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return torch.outer(u, v)  # (m,), (n,) -> (m, n)


def get_inputs():
    return [torch.randn(m) * 2.0, torch.randn(n) + 0.5]


def get_init_inputs():
    return []
