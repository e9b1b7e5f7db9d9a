"""bfloat16 fused residual add and RMSNorm, statistics computed in float32 as LLM inference stacks do."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["rmsnorm", "residual", "normalization", "llm", "low-precision", "memory-bound"],
    "dtype": "bfloat16",
    "configs": {
        "cpu": [
            {"tokens": 2047, "dim": 1024},
            {"tokens": 509, "dim": 4096},
            {"tokens": 8192, "dim": 333},
        ],
        "gpu": [
            {"tokens": 32767, "dim": 4096},
            {"tokens": 8192, "dim": 8191},
            {"tokens": 131072, "dim": 1024},
        ],
    },
    "ranges": {"tokens": [1, 262144], "dim": [16, 16384]},
    "multiple_of": {},
    "backward": False,
}

tokens = 2047
dim = 1024
eps = 1e-6


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.weight = nn.Parameter(1.0 + 0.3 * torch.randn(dim))

    def forward(self, x: torch.Tensor, residual: torch.Tensor):
        hidden = x + residual  # (tokens, dim), bfloat16 residual stream
        h32 = hidden.float()
        rms = torch.rsqrt(h32.pow(2).mean(dim=-1, keepdim=True) + eps)
        return (h32 * rms).to(x.dtype) * self.weight, hidden


def get_inputs():
    x = torch.randn(tokens, dim) * 0.5
    residual = torch.randn(tokens, dim) * (0.5 + 3.0 * torch.rand(tokens, 1))
    return [x, residual]


def get_init_inputs():
    return [dim]
