"""Tiny GPT language model: token + position embeddings, two pre-norm causal transformer blocks, final LayerNorm, tied LM head logits."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 3,
    "tags": ["transformer", "gpt", "embedding", "attention", "causal", "mlp", "llm",
             "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 4, "seq": 64, "vocab": 2001, "heads": 4, "head_dim": 32},
            {"batch": 2, "seq": 128, "vocab": 4096, "heads": 4, "head_dim": 32},
            {"batch": 16, "seq": 31, "vocab": 1000, "heads": 2, "head_dim": 48},
        ],
        "gpu": [
            {"batch": 32, "seq": 1024, "vocab": 50257, "heads": 12, "head_dim": 64},
            {"batch": 8, "seq": 2048, "vocab": 32000, "heads": 16, "head_dim": 64},
            {"batch": 128, "seq": 256, "vocab": 16384, "heads": 8, "head_dim": 64},
        ],
    },
    "ranges": {"batch": [1, 512], "seq": [1, 4096], "vocab": [16, 131072], "heads": [1, 64],
               "head_dim": [8, 256]},
    "multiple_of": {"head_dim": 8},
    "backward": False,
}

batch = 4
seq = 64
vocab = 2001
heads = 4
head_dim = 32
dim = heads * head_dim
blocks = 2


def trained_ln(dim: int) -> nn.LayerNorm:
    norm = nn.LayerNorm(dim)
    with torch.no_grad():
        norm.weight.uniform_(0.5, 1.5)
        norm.bias.normal_(0.0, 0.2)
    return norm


class Block(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = trained_ln(dim), trained_ln(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, e = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, n, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (b, heads, n, n)
        future = torch.ones_like(scores[0, 0], dtype=torch.bool).triu(1)
        attn = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
        x = x + self.proj((attn @ v).transpose(1, 2).reshape(b, n, e))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class Model(nn.Module):
    def __init__(self, vocab: int, max_seq: int, dim: int, heads: int, blocks: int):
        super().__init__()
        self.token = nn.Embedding(vocab, dim)
        self.position = nn.Embedding(max_seq, dim)
        self.blocks = nn.ModuleList(Block(dim, heads) for _ in range(blocks))
        self.ln_final = trained_ln(dim)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x = self.token(ids) + self.position(torch.arange(ids.shape[1], device=ids.device))
        for block in self.blocks:
            x = block(x)  # (batch, seq, dim)
        return self.ln_final(x) @ self.token.weight.t()  # (batch, seq, vocab), tied head


def get_inputs():
    return [torch.randint(0, vocab, (batch, seq))]


def get_init_inputs():
    return [vocab, seq, dim, heads, blocks]
