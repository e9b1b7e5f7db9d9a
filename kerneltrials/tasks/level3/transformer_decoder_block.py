"""Pre-norm transformer decoder block: causal self-attention, cross-attention to encoder memory, GELU MLP, each with a residual."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 3,
    "tags": ["transformer", "attention", "causal", "cross-attention", "layernorm", "mlp",
             "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 2, "seq": 127, "memory": 100, "heads": 8, "head_dim": 32},
            {"batch": 1, "seq": 255, "memory": 63, "heads": 4, "head_dim": 64},
            {"batch": 8, "seq": 33, "memory": 77, "heads": 6, "head_dim": 32},
        ],
        "gpu": [
            {"batch": 32, "seq": 1023, "memory": 511, "heads": 16, "head_dim": 64},
            {"batch": 8, "seq": 2047, "memory": 2047, "heads": 12, "head_dim": 64},
            {"batch": 128, "seq": 127, "memory": 255, "heads": 16, "head_dim": 64},
        ],
    },
    "ranges": {"batch": [1, 512], "seq": [1, 8192], "memory": [1, 8192], "heads": [1, 64],
               "head_dim": [8, 256]},
    "multiple_of": {"head_dim": 8},
    "backward": False,
}

batch = 2
seq = 127
memory = 100
heads = 8
head_dim = 32
embed_dim = heads * head_dim


def trained_ln(dim: int) -> nn.LayerNorm:
    norm = nn.LayerNorm(dim)
    with torch.no_grad():
        norm.weight.uniform_(0.5, 1.5)
        norm.bias.normal_(0.0, 0.2)
    return norm


class Attention(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(dim, dim)
        self.kv = nn.Linear(dim, 2 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, context: torch.Tensor, causal: bool) -> torch.Tensor:
        b, n, e = x.shape
        m = context.shape[1]
        q = self.q(x).view(b, n, self.heads, -1).transpose(1, 2)  # (b, heads, n, d)
        k, v = self.kv(context).view(b, m, 2, self.heads, -1).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (b, heads, n, m)
        if causal:
            future = torch.ones_like(scores[0, 0], dtype=torch.bool).triu(1)
            scores = scores.masked_fill(future, float("-inf"))
        y = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(b, n, e)
        return self.proj(y)


class Model(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.ln1, self.ln2, self.ln3 = trained_ln(dim), trained_ln(dim), trained_ln(dim)
        self.self_attn = Attention(dim, heads)
        self.cross_attn = Attention(dim, heads)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)

    def forward(self, x: torch.Tensor, memory: torch.Tensor) -> torch.Tensor:
        h = self.ln1(x)
        x = x + self.self_attn(h, h, causal=True)  # (b, seq, dim)
        x = x + self.cross_attn(self.ln2(x), memory, causal=False)
        return x + self.fc2(F.gelu(self.fc1(self.ln3(x))))


def get_inputs():
    return [torch.randn(batch, seq, embed_dim), torch.randn(batch, memory, embed_dim) * 1.5]


def get_init_inputs():
    return [embed_dim, heads]
