"""Square matrix multiplication C = A @ B (compute-bound GEMM), in bfloat16.

The bfloat16 variant of L1/matmul_square: inputs and parameters are cast to bfloat16 by the
harness, the output is bfloat16, and outputs are compared with the bfloat16 tolerance (1e-2).
"""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["matmul", "gemm", "low-precision", "compute-bound"],
    "dtype": "bfloat16",
    "configs": {
        "cpu": [{"n": 1021}, {"n": 1279}, {"n": 1531}],
        "gpu": [{"n": 4096}, {"n": 6143}, {"n": 8191}],
    },
    "ranges": {"n": [1, 16384]},
    "multiple_of": {},
    "backward": False,
}

n = 1021


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.matmul(a, b)  # (n, n) @ (n, n) -> (n, n)


def get_inputs():
    a = torch.randn(n, n)
    b = torch.randn(n, n) * 0.5 + 0.1
    return [a, b]


def get_init_inputs():
    return []
