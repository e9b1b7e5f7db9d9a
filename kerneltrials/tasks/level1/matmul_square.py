"""Square matrix multiplication C = A @ B (compute-bound GEMM)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["matmul", "gemm", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"n": 1021}, {"n": 767}, {"n": 1152}],
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
