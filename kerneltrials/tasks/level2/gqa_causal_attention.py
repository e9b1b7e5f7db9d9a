"""Grouped-query causal attention: fewer KV heads than query heads, each KV head shared by a group of query heads."""

import math

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["attention", "causal", "gqa", "bmm", "softmax", "llm", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 2, "kv_heads": 2, "group": 4, "seq": 255, "head_dim": 64},
            {"batch": 1, "kv_heads": 1, "group": 6, "seq": 383, "head_dim": 64},
            {"batch": 8, "kv_heads": 4, "group": 2, "seq": 129, "head_dim": 32},
        ],
        "gpu": [
            {"batch": 2, "kv_heads": 8, "group": 4, "seq": 4095, "head_dim": 128},
            {"batch": 16, "kv_heads": 4, "group": 8, "seq": 2047, "head_dim": 64},
            {"batch": 64, "kv_heads": 2, "group": 6, "seq": 1025, "head_dim": 64},
        ],
    },
    "ranges": {"batch": [1, 256], "kv_heads": [1, 32], "group": [1, 16], "seq": [1, 8192],
               "head_dim": [8, 256]},
    "multiple_of": {"head_dim": 8},
    "backward": False,
}

batch = 2
kv_heads = 2
group = 4
seq = 255
head_dim = 64
heads = kv_heads * group


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        group_size = q.shape[1] // k.shape[1]
        k = k.repeat_interleave(group_size, dim=1)  # (b, heads, n, d)
        v = v.repeat_interleave(group_size, dim=1)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])  # (b, heads, n, n)
        future = torch.ones_like(scores[0, 0], dtype=torch.bool).triu(1)  # (n, n)
        attn = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
        return torch.matmul(attn, v)  # (b, heads, n, d)


def get_inputs():
    q = torch.randn(batch, heads, seq, head_dim) * 1.5
    k = torch.randn(batch, kv_heads, seq, head_dim)
    v = torch.randn(batch, kv_heads, seq, head_dim)
    return [q, k, v]


def get_init_inputs():
    return []
