"""Llama-style decoder layer: RMSNorm, grouped-query causal attention with rotary embeddings, residual, RMSNorm, SwiGLU MLP, residual."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 3,
    "tags": ["transformer", "llama", "attention", "gqa", "rope", "rmsnorm", "swiglu", "llm",
             "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 2, "seq": 127, "kv_heads": 2, "group": 4, "head_dim": 32},
            {"batch": 1, "seq": 255, "kv_heads": 1, "group": 8, "head_dim": 32},
            {"batch": 4, "seq": 63, "kv_heads": 3, "group": 2, "head_dim": 48},
        ],
        "gpu": [
            {"batch": 16, "seq": 2047, "kv_heads": 8, "group": 4, "head_dim": 128},
            {"batch": 1, "seq": 4095, "kv_heads": 8, "group": 8, "head_dim": 128},
            {"batch": 64, "seq": 511, "kv_heads": 4, "group": 4, "head_dim": 64},
        ],
    },
    "ranges": {"batch": [1, 256], "seq": [1, 8192], "kv_heads": [1, 16], "group": [1, 16],
               "head_dim": [8, 256]},
    "multiple_of": {"head_dim": 8},
    "backward": False,
}

batch = 2
seq = 127
kv_heads = 2
group = 4
head_dim = 32
heads = kv_heads * group
dim = heads * head_dim
hidden = 8 * dim // 3
eps = 1e-5
rope_base = 10000.0


def rms_norm(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps) * weight


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    first, second = x.chunk(2, dim=-1)
    return torch.cat([-second, first], dim=-1)


class Model(nn.Module):
    def __init__(self, dim: int, heads: int, kv_heads: int, hidden: int):
        super().__init__()
        self.heads, self.kv_heads = heads, kv_heads
        d = dim // heads
        self.attn_norm = nn.Parameter(1.0 + 0.2 * torch.randn(dim))
        self.wq = nn.Linear(dim, heads * d, bias=False)
        self.wkv = nn.Linear(dim, 2 * kv_heads * d, bias=False)
        self.wo = nn.Linear(heads * d, dim, bias=False)
        self.mlp_norm = nn.Parameter(1.0 + 0.2 * torch.randn(dim))
        self.w_gate = nn.Linear(dim, hidden, bias=False)
        self.w_up = nn.Linear(dim, hidden, bias=False)
        self.w_down = nn.Linear(hidden, dim, bias=False)
        self.register_buffer("inv_freq", rope_base ** (-torch.arange(0, d, 2).float() / d))

    def _attention(self, x: torch.Tensor) -> torch.Tensor:
        b, n, _ = x.shape
        q = self.wq(x).view(b, n, self.heads, -1).transpose(1, 2)  # (b, heads, n, d)
        k, v = self.wkv(x).view(b, n, 2, self.kv_heads, -1).permute(2, 0, 3, 1, 4)  # (b, kv, n, d)
        angles = torch.arange(n, device=x.device).to(x.dtype).unsqueeze(1) * self.inv_freq
        angles = torch.cat([angles, angles], dim=-1)  # (n, d)
        cos, sin = angles.cos(), angles.sin()
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k = k.repeat_interleave(self.heads // self.kv_heads, dim=1)
        v = v.repeat_interleave(self.heads // self.kv_heads, dim=1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (b, heads, n, n)
        future = torch.ones_like(scores[0, 0], dtype=torch.bool).triu(1)
        attn = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
        return self.wo((attn @ v).transpose(1, 2).reshape(b, n, -1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self._attention(rms_norm(x, self.attn_norm))  # (b, n, dim)
        h = rms_norm(x, self.mlp_norm)
        return x + self.w_down(F.silu(self.w_gate(h)) * self.w_up(h))


def get_inputs():
    return [torch.randn(batch, seq, dim) * (0.5 + 2.0 * torch.rand(batch, seq, 1))]


def get_init_inputs():
    return [dim, heads, kv_heads, hidden]
