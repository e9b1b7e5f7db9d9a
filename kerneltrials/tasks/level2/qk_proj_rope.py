"""Fused Q/K projection followed by rotary position embeddings (rotate-half RoPE) on queries and keys, forward and backward."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["linear", "gemm", "rope", "elementwise", "llm", "backward", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 2, "seq": 255, "heads": 8, "head_dim": 64},
            {"batch": 1, "seq": 255, "heads": 6, "head_dim": 128},
            {"batch": 8, "seq": 77, "heads": 12, "head_dim": 32},
        ],
        "gpu": [
            {"batch": 16, "seq": 2047, "heads": 32, "head_dim": 128},
            {"batch": 64, "seq": 513, "heads": 16, "head_dim": 64},
            {"batch": 4, "seq": 8191, "heads": 8, "head_dim": 128},
        ],
    },
    "ranges": {"batch": [1, 256], "seq": [1, 16384], "heads": [1, 64], "head_dim": [8, 256]},
    "multiple_of": {"head_dim": 8},
    "backward": True,
}

batch = 2
seq = 255
heads = 8
head_dim = 64
dim = heads * head_dim
rope_base = 10000.0


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    first, second = x.chunk(2, dim=-1)
    return torch.cat([-second, first], dim=-1)


class Model(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.qk = nn.Linear(dim, 2 * dim, bias=False)
        d = dim // heads
        self.register_buffer("inv_freq", rope_base ** (-torch.arange(0, d, 2).float() / d))

    def forward(self, x: torch.Tensor, positions: torch.Tensor):
        b, n, e = x.shape
        q, k = self.qk(x).view(b, n, 2, self.heads, e // self.heads).unbind(2)  # (b, n, h, d)
        angles = positions.unsqueeze(-1).to(x.dtype) * self.inv_freq  # (b, n, d/2)
        angles = torch.cat([angles, angles], dim=-1).unsqueeze(2)  # (b, n, 1, d)
        cos, sin = angles.cos(), angles.sin()
        return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


def get_inputs():
    x = torch.randn(batch, seq, dim)
    offsets = torch.randint(0, 4096, (batch, 1))
    positions = offsets + torch.arange(seq).unsqueeze(0)  # (b, n): continuing sequences
    return [x, positions]


def get_init_inputs():
    return [dim, heads]
