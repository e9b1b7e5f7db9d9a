"""bfloat16 pre-norm transformer encoder block: x + attention(LN(x)), then x + MLP(LN(x)) with GELU."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 3,
    "tags": ["transformer", "attention", "layernorm", "mlp", "gemm", "llm", "low-precision", "compute-bound"],
    "dtype": "bfloat16",
    "configs": {
        "cpu": [
            {"batch": 4, "seq": 127, "heads": 8, "head_dim": 32},
            {"batch": 1, "seq": 333, "heads": 6, "head_dim": 64},
            {"batch": 8, "seq": 77, "heads": 12, "head_dim": 24},
        ],
        "gpu": [
            {"batch": 32, "seq": 1023, "heads": 16, "head_dim": 64},
            {"batch": 8, "seq": 2047, "heads": 12, "head_dim": 128},
            {"batch": 128, "seq": 257, "heads": 12, "head_dim": 64},
        ],
    },
    "ranges": {"batch": [1, 512], "seq": [1, 8192], "heads": [1, 64], "head_dim": [8, 256]},
    "multiple_of": {"head_dim": 8},
    "backward": False,
}

batch = 4
seq = 127
heads = 8
head_dim = 32
embed_dim = heads * head_dim
mlp_ratio = 4


class Model(nn.Module):
    def __init__(self, embed_dim: int, heads: int, mlp_ratio: int):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(embed_dim)
        self.qkv = nn.Linear(embed_dim, 3 * embed_dim)
        self.proj = nn.Linear(embed_dim, embed_dim)
        self.ln2 = nn.LayerNorm(embed_dim)
        self.fc1 = nn.Linear(embed_dim, mlp_ratio * embed_dim)
        self.fc2 = nn.Linear(mlp_ratio * embed_dim, embed_dim)
        with torch.no_grad():
            for norm in (self.ln1, self.ln2):
                norm.weight.uniform_(0.5, 1.5)
                norm.bias.normal_(0.0, 0.2)

    def _attention(self, x: torch.Tensor) -> torch.Tensor:
        b, n, e = x.shape
        q, k, v = self.qkv(x).split(e, dim=2)
        q = q.view(b, n, self.heads, e // self.heads).transpose(1, 2)  # (b, heads, n, d)
        k = k.view(b, n, self.heads, e // self.heads).transpose(1, 2)
        v = v.view(b, n, self.heads, e // self.heads).transpose(1, 2)
        attn = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1]), dim=-1)
        y = torch.matmul(attn, v).transpose(1, 2).reshape(b, n, e)
        return self.proj(y)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self._attention(self.ln1(x))  # (b, n, embed_dim)
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


def get_inputs():
    x = torch.randn(batch, seq, embed_dim)
    return [x * (0.5 + 2.0 * torch.rand(batch, seq, 1))]


def get_init_inputs():
    return [embed_dim, heads, mlp_ratio]
