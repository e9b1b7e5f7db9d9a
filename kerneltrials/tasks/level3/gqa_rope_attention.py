"""Grouped-query attention layer with rotary embeddings: q/k/v projections, RoPE at given (gapped) position ids, causal softmax attention, output projection; forward and backward."""

import math

import torch
import torch.nn as nn

TASK = {
    "level": 3,
    "tags": ["attention", "causal", "gqa", "rope", "gemm", "llm", "backward", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 2, "seq": 127, "kv_heads": 2, "group": 4, "head_dim": 32},
            {"batch": 1, "seq": 255, "kv_heads": 2, "group": 2, "head_dim": 64},
            {"batch": 8, "seq": 50, "kv_heads": 1, "group": 6, "head_dim": 32},
        ],
        "gpu": [
            {"batch": 16, "seq": 2047, "kv_heads": 8, "group": 4, "head_dim": 128},
            {"batch": 2, "seq": 4095, "kv_heads": 4, "group": 8, "head_dim": 64},
            {"batch": 64, "seq": 511, "kv_heads": 2, "group": 6, "head_dim": 64},
        ],
    },
    "ranges": {"batch": [1, 256], "seq": [1, 16384], "kv_heads": [1, 16], "group": [1, 16],
               "head_dim": [8, 256]},
    "multiple_of": {"head_dim": 8},
    "backward": True,
}

batch = 2
seq = 127
kv_heads = 2
group = 4
head_dim = 32
heads = kv_heads * group
dim = heads * head_dim
rope_base = 10000.0


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    first, second = x.chunk(2, dim=-1)
    return torch.cat([-second, first], dim=-1)


class Model(nn.Module):
    def __init__(self, dim: int, heads: int, kv_heads: int):
        super().__init__()
        self.heads, self.kv_heads = heads, kv_heads
        d = dim // heads
        self.wq = nn.Linear(dim, heads * d, bias=False)
        self.wk = nn.Linear(dim, kv_heads * d, bias=False)
        self.wv = nn.Linear(dim, kv_heads * d, bias=False)
        self.wo = nn.Linear(heads * d, dim, bias=False)
        self.register_buffer("inv_freq", rope_base ** (-torch.arange(0, d, 2).float() / d))

    def forward(self, x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        b, n, _ = x.shape
        q = self.wq(x).view(b, n, self.heads, -1).transpose(1, 2)  # (b, heads, n, d)
        k = self.wk(x).view(b, n, self.kv_heads, -1).transpose(1, 2)  # (b, kv_heads, n, d)
        v = self.wv(x).view(b, n, self.kv_heads, -1).transpose(1, 2)
        angles = positions.to(x.dtype).unsqueeze(-1) * self.inv_freq  # (b, n, d/2)
        angles = torch.cat([angles, angles], dim=-1).unsqueeze(1)  # (b, 1, n, d)
        cos, sin = angles.cos(), angles.sin()
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k = k.repeat_interleave(self.heads // self.kv_heads, dim=1)
        v = v.repeat_interleave(self.heads // self.kv_heads, dim=1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (b, heads, n, n)
        future = torch.ones_like(scores[0, 0], dtype=torch.bool).triu(1)
        attn = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
        return self.wo((attn @ v).transpose(1, 2).reshape(b, n, -1))  # (b, n, dim)


def get_inputs():
    x = torch.randn(batch, seq, dim)
    # Position ids with gaps (packed or pruned tokens), so relative offsets vary.
    positions = torch.cumsum(torch.randint(1, 4, (batch, seq)), dim=1)
    return [x, positions]


def get_init_inputs():
    return [dim, heads, kv_heads]
