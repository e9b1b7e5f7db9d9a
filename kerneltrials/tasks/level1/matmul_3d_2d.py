"""Batched activations times a shared weight: (batch, seq, k) @ (k, n) (compute-bound GEMM)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["matmul", "gemm", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 8, "seq": 255, "k": 511, "n": 1023},
                {"batch": 2, "seq": 1021, "k": 1024, "n": 383},
                {"batch": 64, "seq": 31, "k": 767, "n": 769}],
        "gpu": [{"batch": 16, "seq": 2047, "k": 4096, "n": 4096},
                {"batch": 4, "seq": 8191, "k": 2048, "n": 5631},
                {"batch": 512, "seq": 63, "k": 4095, "n": 1023}],
    },
    "ranges": {"batch": [1, 4096], "seq": [1, 65536], "k": [1, 32768], "n": [1, 32768]},
    "multiple_of": {},
    "backward": False,
}

batch = 8
seq = 255
k = 511
n = 1023


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return torch.matmul(x, w)  # (batch, seq, k) @ (k, n) -> (batch, seq, n)


def get_inputs():
    x = torch.randn(batch, seq, k)
    w = torch.randn(k, n) / k**0.5 + 0.01
    return [x, w]


def get_init_inputs():
    return []
