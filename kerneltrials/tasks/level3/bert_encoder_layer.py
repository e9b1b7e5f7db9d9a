"""BERT encoder layer (post-norm): self-attention with a key-padding mask from sequence lengths, add & LayerNorm, GELU FFN, add & LayerNorm; forward and backward."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 3,
    "tags": ["transformer", "attention", "padding-mask", "layernorm", "mlp", "llm", "backward",
             "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 2, "seq": 127, "heads": 4, "head_dim": 64},
            {"batch": 1, "seq": 255, "heads": 8, "head_dim": 32},
            {"batch": 16, "seq": 33, "heads": 6, "head_dim": 32},
        ],
        "gpu": [
            {"batch": 64, "seq": 511, "heads": 12, "head_dim": 64},
            {"batch": 256, "seq": 127, "heads": 16, "head_dim": 64},
            {"batch": 16, "seq": 2047, "heads": 12, "head_dim": 64},
        ],
    },
    "ranges": {"batch": [1, 1024], "seq": [2, 4096], "heads": [1, 64], "head_dim": [8, 256]},
    "multiple_of": {"head_dim": 8},
    "backward": True,
}

batch = 2
seq = 127
heads = 4
head_dim = 64
embed_dim = heads * head_dim


def trained_ln(dim: int) -> nn.LayerNorm:
    norm = nn.LayerNorm(dim, eps=1e-12)
    with torch.no_grad():
        norm.weight.uniform_(0.5, 1.5)
        norm.bias.normal_(0.0, 0.2)
    return norm


class Model(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.attn_out = nn.Linear(dim, dim)
        self.ln1 = trained_ln(dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)
        self.ln2 = trained_ln(dim)

    def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        b, n, e = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, -1).permute(2, 0, 3, 1, 4)  # (b, h, n, d)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (b, h, n, n)
        padding = torch.arange(n, device=x.device).view(1, 1, 1, -1) >= lengths.view(-1, 1, 1, 1)
        attn = torch.softmax(scores.masked_fill(padding, float("-inf")), dim=-1)
        y = (attn @ v).transpose(1, 2).reshape(b, n, e)
        x = self.ln1(x + self.attn_out(y))
        return self.ln2(x + self.fc2(F.gelu(self.fc1(x))))  # (b, n, dim)


def get_inputs():
    x = torch.randn(batch, seq, embed_dim)
    lengths = torch.randint(seq // 2, seq + 1, (batch,))
    return [x, lengths]


def get_init_inputs():
    return [embed_dim, heads]
