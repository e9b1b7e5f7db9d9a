"""Matrix-vector product y = A @ x (memory-bound GEMV)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["matmul", "gemv", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"m": 4093, "k": 4099}, {"m": 511, "k": 32771}, {"m": 16381, "k": 1023}],
        "gpu": [{"m": 16383, "k": 16384}, {"m": 4096, "k": 131071}, {"m": 131071, "k": 2047}],
    },
    "ranges": {"m": [1, 262144], "k": [1, 262144]},
    "multiple_of": {},
    "backward": False,
}

m = 4093
k = 4099


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return torch.matmul(a, x)  # (m, k) @ (k,) -> (m,)


def get_inputs():
    a = torch.randn(m, k) / k**0.5
    x = torch.randn(k) * 2.0 - 0.3
    return [a, x]


def get_init_inputs():
    return []
