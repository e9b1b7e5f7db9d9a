"""Self-attention with QK-norm (OLMo 2 / Qwen 3 style): per-head RMSNorm on queries and keys before the causal softmax, fused QKV and output projections."""

import math

import torch
import torch.nn as nn

TASK = {
    "level": 3,
    "tags": ["attention", "causal", "qk-norm", "rmsnorm", "gemm", "llm", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 4, "seq": 127, "heads": 8, "head_dim": 32},
            {"batch": 1, "seq": 383, "heads": 4, "head_dim": 64},
            {"batch": 16, "seq": 40, "heads": 6, "head_dim": 32},
        ],
        "gpu": [
            {"batch": 16, "seq": 2047, "heads": 32, "head_dim": 128},
            {"batch": 1, "seq": 8191, "heads": 16, "head_dim": 128},
            {"batch": 64, "seq": 511, "heads": 16, "head_dim": 64},
        ],
    },
    "ranges": {"batch": [1, 256], "seq": [1, 16384], "heads": [1, 64], "head_dim": [8, 256]},
    "multiple_of": {"head_dim": 8},
    "backward": False,
}

batch = 4
seq = 127
heads = 8
head_dim = 32
dim = heads * head_dim
eps = 1e-6


class Model(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        d = dim // heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.q_norm = nn.Parameter(1.0 + 0.3 * torch.randn(d))
        self.k_norm = nn.Parameter(1.0 + 0.3 * torch.randn(d))
        self.out = nn.Linear(dim, dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, e = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, -1).permute(2, 0, 3, 1, 4)  # (b, h, n, d)
        q = q * torch.rsqrt(q.pow(2).mean(-1, keepdim=True) + eps) * self.q_norm
        k = k * torch.rsqrt(k.pow(2).mean(-1, keepdim=True) + eps) * self.k_norm
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]) * 4.0  # sharpened: normed q, k
        future = torch.ones_like(scores[0, 0], dtype=torch.bool).triu(1)
        attn = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
        return self.out((attn @ v).transpose(1, 2).reshape(b, n, e))  # (b, n, dim)


def get_inputs():
    return [torch.randn(batch, seq, dim) * (0.5 + 2.0 * torch.rand(batch, seq, 1))]


def get_init_inputs():
    return [dim, heads]
