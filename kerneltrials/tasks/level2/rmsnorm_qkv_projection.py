"""Attention input of a pre-norm LLM layer: RMSNorm, then a fused QKV projection with grouped KV heads, split into q, k, v (forward and backward)."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["rmsnorm", "linear", "gemm", "gqa", "llm", "backward", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"tokens": 511, "heads": 8, "kv_heads": 2, "head_dim": 64},
            {"tokens": 192, "heads": 16, "kv_heads": 4, "head_dim": 64},
            {"tokens": 1400, "heads": 6, "kv_heads": 2, "head_dim": 32},
        ],
        "gpu": [
            {"tokens": 8192, "heads": 32, "kv_heads": 8, "head_dim": 128},
            {"tokens": 16383, "heads": 16, "kv_heads": 4, "head_dim": 128},
            {"tokens": 4096, "heads": 64, "kv_heads": 8, "head_dim": 128},
        ],
    },
    "ranges": {"tokens": [1, 16384], "heads": [1, 64], "kv_heads": [1, 64], "head_dim": [8, 256]},
    "multiple_of": {"head_dim": 8},
    "backward": True,
}

tokens = 511
heads = 8
kv_heads = 2
head_dim = 64
dim = heads * head_dim
eps = 1e-6


class Model(nn.Module):
    def __init__(self, dim: int, heads: int, kv_heads: int, head_dim: int):
        super().__init__()
        self.norm_weight = nn.Parameter(1.0 + 0.3 * torch.randn(dim))
        self.sizes = [heads * head_dim, kv_heads * head_dim, kv_heads * head_dim]
        self.qkv = nn.Linear(dim, sum(self.sizes), bias=False)

    def forward(self, x: torch.Tensor):
        rms = torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps)
        h = x * rms * self.norm_weight  # (tokens, dim)
        q, k, v = self.qkv(h).split(self.sizes, dim=-1)
        return q, k, v


def get_inputs():
    return [torch.randn(tokens, dim) * (0.5 + 2.0 * torch.rand(tokens, 1))]


def get_init_inputs():
    return [dim, heads, kv_heads, head_dim]
