"""float16 GPT-style causal self-attention: fused QKV projection, masked softmax, output projection."""

import math

import torch
import torch.nn as nn

TASK = {
    "level": 3,
    "tags": ["attention", "causal", "gemm", "softmax", "llm", "low-precision", "compute-bound"],
    "dtype": "float16",
    "configs": {
        "cpu": [
            {"batch": 4, "seq": 255, "heads": 8, "head_dim": 32},
            {"batch": 1, "seq": 513, "heads": 6, "head_dim": 64},
            {"batch": 16, "seq": 77, "heads": 12, "head_dim": 24},
        ],
        "gpu": [
            {"batch": 32, "seq": 1023, "heads": 16, "head_dim": 64},
            {"batch": 8, "seq": 4095, "heads": 12, "head_dim": 128},
            {"batch": 128, "seq": 257, "heads": 20, "head_dim": 64},
        ],
    },
    "ranges": {"batch": [1, 512], "seq": [1, 8192], "heads": [1, 64], "head_dim": [8, 256]},
    "multiple_of": {"head_dim": 8},
    "backward": False,
}

batch = 4
seq = 255
heads = 8
head_dim = 32
embed_dim = heads * head_dim


class Model(nn.Module):
    def __init__(self, embed_dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.c_attn = nn.Linear(embed_dim, 3 * embed_dim)
        self.c_proj = nn.Linear(embed_dim, embed_dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, e = x.shape
        q, k, v = self.c_attn(x).split(e, dim=2)
        q = q.view(b, n, self.heads, e // self.heads).transpose(1, 2)  # (b, heads, n, d)
        k = k.view(b, n, self.heads, e // self.heads).transpose(1, 2)
        v = v.view(b, n, self.heads, e // self.heads).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])  # (b, heads, n, n)
        future = torch.ones(n, n, dtype=torch.bool, device=x.device).triu(1)
        scores = scores.masked_fill(future, float("-inf"))
        attn = torch.softmax(scores, dim=-1)
        y = torch.matmul(attn, v).transpose(1, 2).reshape(b, n, e)
        return self.c_proj(y)  # (b, n, embed_dim)


def get_inputs():
    return [torch.randn(batch, seq, embed_dim) * 2.0]


def get_init_inputs():
    return [embed_dim, heads]
