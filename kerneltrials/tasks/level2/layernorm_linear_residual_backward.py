"""Pre-norm residual sublayer x + W LN(x), forward and backward (the gradient flows through both paths)."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["layernorm", "linear", "gemm", "residual", "backward", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"tokens": 511, "dim": 512},
            {"tokens": 128, "dim": 1023},
            {"tokens": 2000, "dim": 256},
        ],
        "gpu": [
            {"tokens": 16384, "dim": 2048},
            {"tokens": 8191, "dim": 4096},
            {"tokens": 65536, "dim": 1024},
        ],
    },
    "ranges": {"tokens": [1, 65536], "dim": [16, 8192]},
    "multiple_of": {},
    "backward": True,
}

tokens = 511
dim = 512
eps = 1e-5


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.norm = nn.LayerNorm(dim, eps=eps)
        self.proj = nn.Linear(dim, dim)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.normal_(0.0, 0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.proj(self.norm(x))  # (tokens, dim)


def get_inputs():
    return [torch.randn(tokens, dim) * (0.5 + 2.0 * torch.rand(tokens, 1)) + 0.3]


def get_init_inputs():
    return [dim]
