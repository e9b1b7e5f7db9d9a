"""Decode-step attention: one query token per sequence against a padded KV cache with per-sequence lengths (GQA layout)."""

import math

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["attention", "decode", "kv-cache", "gqa", "softmax", "llm", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 8, "kv_heads": 4, "group": 4, "max_len": 2047, "head_dim": 64},
            {"batch": 2, "kv_heads": 8, "group": 2, "max_len": 8191, "head_dim": 128},
            {"batch": 32, "kv_heads": 2, "group": 8, "max_len": 1000, "head_dim": 64},
        ],
        "gpu": [
            {"batch": 64, "kv_heads": 8, "group": 4, "max_len": 4095, "head_dim": 128},
            {"batch": 256, "kv_heads": 8, "group": 8, "max_len": 1023, "head_dim": 128},
            {"batch": 8, "kv_heads": 4, "group": 8, "max_len": 32767, "head_dim": 64},
        ],
    },
    "ranges": {"batch": [1, 512], "kv_heads": [1, 32], "group": [1, 16], "max_len": [2, 65536],
               "head_dim": [8, 256]},
    "multiple_of": {"head_dim": 8},
    "backward": False,
}

batch = 8
kv_heads = 4
group = 4
max_len = 2047
head_dim = 64
heads = kv_heads * group


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor,
                lengths: torch.Tensor) -> torch.Tensor:
        b, h, d = q.shape  # one new token per sequence
        hk, length = k_cache.shape[1], k_cache.shape[2]
        q = q.view(b, hk, h // hk, d)  # (b, kv_heads, group, d)
        scores = torch.matmul(q, k_cache.transpose(-2, -1)) / math.sqrt(d)  # (b, kv_heads, group, len)
        position = torch.arange(length, device=q.device)
        padding = position.view(1, 1, 1, -1) >= lengths.view(-1, 1, 1, 1)
        attn = torch.softmax(scores.masked_fill(padding, float("-inf")), dim=-1)
        return torch.matmul(attn, v_cache).reshape(b, h, d)  # (b, heads, d)


def get_inputs():
    q = torch.randn(batch, heads, head_dim) * 1.5
    k_cache = torch.randn(batch, kv_heads, max_len, head_dim)
    v_cache = torch.randn(batch, kv_heads, max_len, head_dim)
    lengths = torch.randint(max_len // 2, max_len + 1, (batch,))
    return [q, k_cache, v_cache, lengths]


def get_init_inputs():
    return []
