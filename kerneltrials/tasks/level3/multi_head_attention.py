"""Multi-head cross-attention: query/key/value projections, softmax(QK^T / sqrt(d)) V, output projection."""

import math

import torch
import torch.nn as nn

TASK = {
    "level": 3,
    "tags": ["attention", "gemm", "softmax", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 4, "query_len": 127, "context_len": 255, "heads": 8, "head_dim": 32},
            {"batch": 2, "query_len": 333, "context_len": 333, "heads": 6, "head_dim": 64},
            {"batch": 16, "query_len": 64, "context_len": 77, "heads": 12, "head_dim": 24},
        ],
        "gpu": [
            {"batch": 32, "query_len": 1023, "context_len": 1024, "heads": 16, "head_dim": 64},
            {"batch": 8, "query_len": 4095, "context_len": 2048, "heads": 12, "head_dim": 128},
            {"batch": 128, "query_len": 256, "context_len": 77, "heads": 20, "head_dim": 64},
        ],
    },
    "ranges": {"batch": [1, 512], "query_len": [1, 8192], "context_len": [1, 8192],
               "heads": [1, 64], "head_dim": [8, 256]},
    "multiple_of": {"head_dim": 8},
    "backward": False,
}

batch = 4
query_len = 127
context_len = 255
heads = 8
head_dim = 32
embed_dim = heads * head_dim


class Model(nn.Module):
    def __init__(self, embed_dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.q_proj = nn.Linear(embed_dim, embed_dim)
        # No key bias: it adds q.b_k to every score of a query, which softmax cancels.
        self.k_proj = nn.Linear(embed_dim, embed_dim, bias=False)
        self.v_proj = nn.Linear(embed_dim, embed_dim)
        self.out_proj = nn.Linear(embed_dim, embed_dim)

    def _split(self, t: torch.Tensor) -> torch.Tensor:
        b, n, e = t.shape
        return t.view(b, n, self.heads, e // self.heads).transpose(1, 2)  # (b, heads, n, d)

    def forward(self, x: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
        b, n, e = x.shape
        q = self._split(self.q_proj(x))  # (b, heads, query_len, d)
        k = self._split(self.k_proj(context))  # (b, heads, context_len, d)
        v = self._split(self.v_proj(context))
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        attn = torch.softmax(scores, dim=-1)  # (b, heads, query_len, context_len)
        y = torch.matmul(attn, v).transpose(1, 2).reshape(b, n, e)
        return self.out_proj(y)  # (b, query_len, embed_dim)


def get_inputs():
    x = torch.randn(batch, query_len, embed_dim) * 2.0
    context = torch.randn(batch, context_len, embed_dim) * 2.0
    return [x, context]


def get_init_inputs():
    return [embed_dim, heads]
