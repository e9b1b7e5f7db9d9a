"""Sliding-window causal attention (Mistral-style): each query attends to at most `window` most recent keys."""

import math

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["attention", "causal", "sliding-window", "bmm", "softmax", "llm", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 2, "heads": 8, "seq": 383, "head_dim": 64, "window": 128},
            {"batch": 1, "heads": 4, "seq": 767, "head_dim": 64, "window": 255},
            {"batch": 4, "heads": 6, "seq": 200, "head_dim": 32, "window": 61},
        ],
        "gpu": [
            {"batch": 8, "heads": 32, "seq": 4095, "head_dim": 128, "window": 1024},
            {"batch": 1, "heads": 16, "seq": 8191, "head_dim": 64, "window": 4096},
            {"batch": 32, "heads": 12, "seq": 2047, "head_dim": 64, "window": 511},
        ],
    },
    "ranges": {"batch": [1, 256], "heads": [1, 64], "seq": [1, 16384], "head_dim": [8, 256],
               "window": [1, 16384]},
    "multiple_of": {"head_dim": 8},
    "backward": False,
}

batch = 2
heads = 8
seq = 383
head_dim = 64
window = 128


class Model(nn.Module):
    def __init__(self, window: int):
        super().__init__()
        self.window = window

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        n = q.shape[-2]
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])  # (b, h, n, n)
        i = torch.arange(n, device=q.device).unsqueeze(1)
        j = torch.arange(n, device=q.device).unsqueeze(0)
        hidden = (j > i) | (i - j >= self.window)  # future keys and keys out of the window
        attn = torch.softmax(scores.masked_fill(hidden, float("-inf")), dim=-1)
        return torch.matmul(attn, v)  # (b, h, n, d)


def get_inputs():
    q = torch.randn(batch, heads, seq, head_dim) * 1.5
    k = torch.randn(batch, heads, seq, head_dim)
    v = torch.randn(batch, heads, seq, head_dim)
    return [q, k, v]


def get_init_inputs():
    return [window]
