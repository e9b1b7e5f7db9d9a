"""Multi-head latent attention (DeepSeek-V2 style, without the decoupled RoPE part): keys and values are up-projected from a small normalised latent, causal attention, output projection."""

import math

import torch
import torch.nn as nn

TASK = {
    "level": 3,
    "tags": ["attention", "causal", "mla", "low-rank", "rmsnorm", "gemm", "llm", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 4, "seq": 127, "heads": 8, "head_dim": 32, "latent": 64},
            {"batch": 2, "seq": 255, "heads": 4, "head_dim": 64, "latent": 96},
            {"batch": 16, "seq": 50, "heads": 6, "head_dim": 32, "latent": 48},
        ],
        "gpu": [
            {"batch": 16, "seq": 2047, "heads": 16, "head_dim": 128, "latent": 512},
            {"batch": 2, "seq": 4095, "heads": 32, "head_dim": 128, "latent": 512},
            {"batch": 64, "seq": 511, "heads": 16, "head_dim": 64, "latent": 256},
        ],
    },
    "ranges": {"batch": [1, 256], "seq": [1, 8192], "heads": [1, 128], "head_dim": [8, 256],
               "latent": [8, 2048]},
    "multiple_of": {"head_dim": 8},
    "backward": False,
}

batch = 4
seq = 127
heads = 8
head_dim = 32
latent = 64
dim = heads * head_dim
eps = 1e-6


class Model(nn.Module):
    def __init__(self, dim: int, heads: int, latent: int):
        super().__init__()
        self.heads = heads
        self.wq = nn.Linear(dim, dim, bias=False)
        self.w_down_kv = nn.Linear(dim, latent, bias=False)
        self.latent_norm = nn.Parameter(1.0 + 0.2 * torch.randn(latent))
        self.w_up_k = nn.Linear(latent, dim, bias=False)
        self.w_up_v = nn.Linear(latent, dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, e = x.shape
        c = self.w_down_kv(x)  # (b, n, latent): what a KV cache would store
        c = c * torch.rsqrt(c.pow(2).mean(-1, keepdim=True) + eps) * self.latent_norm
        q = self.wq(x).view(b, n, self.heads, -1).transpose(1, 2)  # (b, heads, n, d)
        k = self.w_up_k(c).view(b, n, self.heads, -1).transpose(1, 2)
        v = self.w_up_v(c).view(b, n, self.heads, -1).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        future = torch.ones_like(scores[0, 0], dtype=torch.bool).triu(1)
        attn = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
        return self.wo((attn @ v).transpose(1, 2).reshape(b, n, e))  # (b, n, dim)


def get_inputs():
    return [torch.randn(batch, seq, dim) * 1.5]


def get_init_inputs():
    return [dim, heads, latent]
