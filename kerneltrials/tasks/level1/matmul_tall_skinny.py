"""Tall-skinny matrix multiplication: (M, K) @ (K, N) with M >> K, N (memory-bound GEMM)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["matmul", "gemm", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"m": 131071, "k": 64, "n": 63},
                {"m": 262139, "k": 16, "n": 33},
                {"m": 65521, "k": 127, "n": 96}],
        "gpu": [{"m": 1048575, "k": 64, "n": 64}, {"m": 4194301, "k": 16, "n": 31}, {"m": 262143, "k": 127, "n": 129}],
    },
    "ranges": {"m": [1, 8388608], "k": [1, 512], "n": [1, 512]},
    "multiple_of": {},
    "backward": False,
}

m = 131071
k = 64
n = 63


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.matmul(a, b)  # (m, k) @ (k, n) -> (m, n)


def get_inputs():
    a = torch.randn(m, k)
    b = torch.randn(k, n) / k**0.5
    return [a, b]


def get_init_inputs():
    return []
