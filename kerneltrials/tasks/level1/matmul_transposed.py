"""Matrix multiplication of two transposed operands, C = A^T @ B^T (compute-bound GEMM).

A is stored (k, m) and B (n, k): both operands are read along their non-contiguous axis.
"""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["matmul", "gemm", "transposed", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"m": 1021, "k": 767, "n": 1023}, {"m": 257, "k": 4093, "n": 511}, {"m": 2047, "k": 255, "n": 1531}],
        "gpu": [{"m": 8191, "k": 4096, "n": 8192}, {"m": 2048, "k": 32767, "n": 2047}, {"m": 16383, "k": 1024, "n": 12287}],
    },
    "ranges": {"m": [1, 65536], "k": [1, 65536], "n": [1, 65536]},
    "multiple_of": {},
    "backward": False,
}

m = 1021
k = 767
n = 1023


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.matmul(a.t(), b.t())  # (k, m)^T @ (n, k)^T -> (m, n)


def get_inputs():
    a = torch.randn(k, m)
    b = torch.randn(n, k) * 0.5 - 0.1
    return [a, b]


def get_init_inputs():
    return []
