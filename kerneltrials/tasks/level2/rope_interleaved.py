"""GPT-J / Llama-reference rotary embedding with interleaved pairs: (x[2i], x[2i+1]) rotated by position-dependent angles, on q and k."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["rope", "elementwise", "llm", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 1, "seq": 511, "heads": 16, "kv_heads": 4, "head_dim": 64},
            {"batch": 1, "seq": 511, "heads": 8, "kv_heads": 8, "head_dim": 128},
            {"batch": 16, "seq": 129, "heads": 12, "kv_heads": 2, "head_dim": 32},
        ],
        "gpu": [
            {"batch": 32, "seq": 4095, "heads": 32, "kv_heads": 8, "head_dim": 128},
            {"batch": 8, "seq": 16383, "heads": 16, "kv_heads": 4, "head_dim": 128},
            {"batch": 256, "seq": 513, "heads": 32, "kv_heads": 32, "head_dim": 64},
        ],
    },
    "ranges": {"batch": [1, 512], "seq": [1, 65536], "heads": [1, 128], "kv_heads": [1, 128],
               "head_dim": [8, 256]},
    "multiple_of": {"head_dim": 8},
    "backward": False,
}

batch = 1
seq = 511
heads = 16
kv_heads = 4
head_dim = 64
rope_base = 10000.0


def rotate_pairs(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    pairs = x.unflatten(-1, (-1, 2))  # (b, n, h, d/2, 2)
    even, odd = pairs[..., 0], pairs[..., 1]
    rotated = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1)
    return rotated.flatten(-2)


class Model(nn.Module):
    def __init__(self, head_dim: int):
        super().__init__()
        self.register_buffer("inv_freq", rope_base ** (-torch.arange(0, head_dim, 2).float() / head_dim))

    def forward(self, q: torch.Tensor, k: torch.Tensor, positions: torch.Tensor):
        angles = positions.unsqueeze(-1).to(q.dtype) * self.inv_freq  # (b, n, d/2)
        cos, sin = angles.cos().unsqueeze(2), angles.sin().unsqueeze(2)  # (b, n, 1, d/2)
        return rotate_pairs(q, cos, sin), rotate_pairs(k, cos, sin)


def get_inputs():
    q = torch.randn(batch, seq, heads, head_dim)
    k = torch.randn(batch, seq, kv_heads, head_dim) * 2.0
    positions = torch.randint(0, 8192, (batch, 1)) + torch.arange(seq).unsqueeze(0)  # (b, n)
    return [q, k, positions]


def get_init_inputs():
    return [head_dim]
