"""Gemma-style input layer: embedding lookup scaled by sqrt(dim) starts the residual stream, and RMSNorm of it feeds the first block."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["embedding", "gather", "rmsnorm", "llm", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"tokens": 4095, "vocab": 32000, "dim": 512},
            {"tokens": 1024, "vocab": 50257, "dim": 2047},
            {"tokens": 16384, "vocab": 8191, "dim": 128},
        ],
        "gpu": [
            {"tokens": 65535, "vocab": 128256, "dim": 4096},
            {"tokens": 262144, "vocab": 32000, "dim": 1024},
            {"tokens": 16384, "vocab": 256000, "dim": 3071},
        ],
    },
    "ranges": {"tokens": [1, 262144], "vocab": [16, 262144], "dim": [16, 8192]},
    "multiple_of": {},
    "backward": False,
}

tokens = 4095
vocab = 32000
dim = 512
eps = 1e-6


class Model(nn.Module):
    def __init__(self, vocab: int, dim: int):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.norm_weight = nn.Parameter(0.3 * torch.randn(dim))
        self.scale = dim ** 0.5

    def forward(self, ids: torch.Tensor):
        x = self.embed(ids) * self.scale  # (tokens, dim): the residual stream
        rms = torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps)
        return x * rms * (1.0 + self.norm_weight), x


def get_inputs():
    return [torch.randint(0, vocab, (tokens,))]


def get_init_inputs():
    return [vocab, dim]
