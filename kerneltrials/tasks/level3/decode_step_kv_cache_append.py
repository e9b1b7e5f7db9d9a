"""One decode step of an attention layer with a KV cache: project the new token, apply RoPE at its position, append k/v to the cache, attend over the valid prefix; returns output and updated caches."""

import math

import torch
import torch.nn as nn

TASK = {
    "level": 3,
    "tags": ["attention", "decode", "kv-cache", "gqa", "rope", "llm", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 4, "max_len": 1023, "kv_heads": 4, "group": 2, "head_dim": 64},
            {"batch": 1, "max_len": 4095, "kv_heads": 2, "group": 4, "head_dim": 128},
            {"batch": 32, "max_len": 300, "kv_heads": 2, "group": 3, "head_dim": 64},
        ],
        "gpu": [
            {"batch": 64, "max_len": 4095, "kv_heads": 8, "group": 4, "head_dim": 128},
            {"batch": 256, "max_len": 1023, "kv_heads": 8, "group": 8, "head_dim": 128},
            {"batch": 8, "max_len": 32767, "kv_heads": 4, "group": 8, "head_dim": 64},
        ],
    },
    "ranges": {"batch": [1, 512], "max_len": [4, 65536], "kv_heads": [1, 32], "group": [1, 16],
               "head_dim": [8, 256]},
    "multiple_of": {"head_dim": 8},
    "backward": False,
}

batch = 4
max_len = 1023
kv_heads = 4
group = 2
head_dim = 64
heads = kv_heads * group
dim = heads * head_dim
rope_base = 10000.0


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    first, second = x.chunk(2, dim=-1)
    return torch.cat([-second, first], dim=-1)


class Model(nn.Module):
    def __init__(self, dim: int, heads: int, kv_heads: int):
        super().__init__()
        self.heads, self.kv_heads = heads, kv_heads
        d = dim // heads
        self.wqkv = nn.Linear(dim, (heads + 2 * kv_heads) * d, bias=False)
        self.wo = nn.Linear(heads * d, dim, bias=False)
        self.register_buffer("inv_freq", rope_base ** (-torch.arange(0, d, 2).float() / d))

    def forward(self, x: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor,
                positions: torch.Tensor):
        # x: (b, dim) new token; caches: (b, kv_heads, max_len, d); positions: (b,) its index
        b, hk, length, d = k_cache.shape
        q, k, v = self.wqkv(x).split([self.heads * d, hk * d, hk * d], dim=-1)
        q, k, v = q.view(b, hk, -1, d), k.view(b, hk, 1, d), v.view(b, hk, 1, d)
        angles = positions.to(x.dtype).unsqueeze(-1) * self.inv_freq  # (b, d/2)
        angles = torch.cat([angles, angles], dim=-1).view(b, 1, 1, d)
        cos, sin = angles.cos(), angles.sin()
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        slot = positions.view(b, 1, 1, 1).expand(b, hk, 1, d)
        k_cache = k_cache.scatter(2, slot, k)  # append at each sequence's position
        v_cache = v_cache.scatter(2, slot, v)
        scores = q @ k_cache.transpose(-2, -1) / math.sqrt(d)  # (b, kv_heads, group, max_len)
        invalid = torch.arange(length, device=x.device).view(1, 1, 1, -1) > positions.view(-1, 1, 1, 1)
        attn = torch.softmax(scores.masked_fill(invalid, float("-inf")), dim=-1)
        out = self.wo((attn @ v_cache).reshape(b, -1))  # (b, dim)
        return out, k_cache, v_cache


def get_inputs():
    x = torch.randn(batch, dim)
    k_cache = torch.randn(batch, kv_heads, max_len, head_dim)
    v_cache = torch.randn(batch, kv_heads, max_len, head_dim)
    positions = torch.randint(max_len // 2, max_len, (batch,))
    return [x, k_cache, v_cache, positions]


def get_init_inputs():
    return [dim, heads, kv_heads]
