"""Causal scaled dot-product attention on given q, k, v: QK^T, scale, causal mask, softmax, PV (forward and backward)."""

import math

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["attention", "causal", "bmm", "softmax", "llm", "backward", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 2, "heads": 8, "seq": 255, "head_dim": 64},
            {"batch": 1, "heads": 4, "seq": 513, "head_dim": 64},
            {"batch": 16, "heads": 6, "seq": 97, "head_dim": 32},
        ],
        "gpu": [
            {"batch": 16, "heads": 16, "seq": 2047, "head_dim": 64},
            {"batch": 2, "heads": 32, "seq": 4095, "head_dim": 128},
            {"batch": 64, "heads": 12, "seq": 513, "head_dim": 64},
        ],
    },
    "ranges": {"batch": [1, 256], "heads": [1, 64], "seq": [1, 8192], "head_dim": [8, 256]},
    "multiple_of": {"head_dim": 8},
    "backward": True,
}

batch = 2
heads = 8
seq = 255
head_dim = 64


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])  # (b, h, n, n)
        future = torch.ones_like(scores[0, 0], dtype=torch.bool).triu(1)  # (n, n)
        attn = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
        return torch.matmul(attn, v)  # (b, h, n, d)


def get_inputs():
    q = torch.randn(batch, heads, seq, head_dim) * 1.5
    k = torch.randn(batch, heads, seq, head_dim)
    v = torch.randn(batch, heads, seq, head_dim)
    return [q, k, v]


def get_init_inputs():
    return []
