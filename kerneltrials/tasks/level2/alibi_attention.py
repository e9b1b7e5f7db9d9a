"""Causal attention with ALiBi: a per-head linear distance penalty added to the scores instead of position embeddings."""

import math

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["attention", "causal", "alibi", "bmm", "softmax", "llm", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 2, "heads": 8, "seq": 255, "head_dim": 64},
            {"batch": 1, "heads": 12, "seq": 400, "head_dim": 32},
            {"batch": 6, "heads": 4, "seq": 129, "head_dim": 64},
        ],
        "gpu": [
            {"batch": 16, "heads": 32, "seq": 2047, "head_dim": 128},
            {"batch": 4, "heads": 16, "seq": 4095, "head_dim": 64},
            {"batch": 64, "heads": 12, "seq": 1023, "head_dim": 64},
        ],
    },
    "ranges": {"batch": [1, 256], "heads": [1, 64], "seq": [1, 8192], "head_dim": [8, 256]},
    "multiple_of": {"head_dim": 8},
    "backward": False,
}

batch = 2
heads = 8
seq = 255
head_dim = 64


class Model(nn.Module):
    def __init__(self, heads: int):
        super().__init__()
        # Geometric slopes 2^(-8 h / heads), as in the ALiBi paper.
        self.register_buffer("slopes", 2.0 ** (-8.0 * torch.arange(1, heads + 1) / heads))

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        n = q.shape[-2]
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])  # (b, h, n, n)
        position = torch.arange(n, device=q.device)
        distance = (position.unsqueeze(1) - position.unsqueeze(0)).to(q.dtype)  # i - j
        scores = scores - self.slopes.view(1, -1, 1, 1) * distance
        future = torch.ones_like(scores[0, 0], dtype=torch.bool).triu(1)  # (n, n)
        attn = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
        return torch.matmul(attn, v)  # (b, h, n, d)


def get_inputs():
    q = torch.randn(batch, heads, seq, head_dim) * 1.5
    k = torch.randn(batch, heads, seq, head_dim)
    v = torch.randn(batch, heads, seq, head_dim)
    return [q, k, v]


def get_init_inputs():
    return [heads]
