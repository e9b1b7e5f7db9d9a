"""Fused residual add and RMSNorm (pre-norm LLM layer boundary): returns the normalised output and the new residual stream, forward and backward."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["rmsnorm", "residual", "normalization", "llm", "backward", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"tokens": 1023, "dim": 1024},
            {"tokens": 255, "dim": 4096},
            {"tokens": 4096, "dim": 333},
        ],
        "gpu": [
            {"tokens": 32767, "dim": 4096},
            {"tokens": 8192, "dim": 8191},
            {"tokens": 131072, "dim": 1024},
        ],
    },
    "ranges": {"tokens": [1, 262144], "dim": [16, 16384]},
    "multiple_of": {},
    "backward": True,
}

tokens = 1023
dim = 1024
eps = 1e-6


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.weight = nn.Parameter(1.0 + 0.3 * torch.randn(dim))

    def forward(self, x: torch.Tensor, residual: torch.Tensor):
        hidden = x + residual  # (tokens, dim): the new residual stream
        rms = torch.rsqrt(hidden.pow(2).mean(dim=-1, keepdim=True) + eps)
        return hidden * rms * self.weight, hidden


def get_inputs():
    x = torch.randn(tokens, dim) * 0.5
    residual = torch.randn(tokens, dim) * (0.5 + 3.0 * torch.rand(tokens, 1))
    return [x, residual]


def get_init_inputs():
    return [dim]
