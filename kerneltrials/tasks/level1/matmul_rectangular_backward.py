"""Rectangular matrix multiplication C = A @ B, forward and backward (compute-bound GEMM).

The backward pass computes dA = dC @ B^T and dB = A^T @ dC: three GEMMs of different
shapes and layouts.
"""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["matmul", "gemm", "backward", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"m": 1021, "k": 509, "n": 767}, {"m": 4093, "k": 255, "n": 383}, {"m": 257, "k": 2047, "n": 511}],
        "gpu": [{"m": 8191, "k": 4096, "n": 6143}, {"m": 32767, "k": 1024, "n": 2047}, {"m": 2047, "k": 16383, "n": 4096}],
    },
    "ranges": {"m": [1, 65536], "k": [1, 65536], "n": [1, 65536]},
    "multiple_of": {},
    "backward": True,
}

m = 1021
k = 509
n = 767


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.matmul(a, b)  # (m, k) @ (k, n) -> (m, n)


def get_inputs():
    a = torch.randn(m, k)
    b = torch.randn(k, n) * 0.5 + 0.1
    return [a, b]


def get_init_inputs():
    return []
