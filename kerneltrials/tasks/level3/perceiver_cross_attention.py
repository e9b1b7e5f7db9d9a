"""Perceiver encoder step: a learned latent array cross-attends to a long input array, then a GELU MLP on the latents (pre-norm, residuals)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 3,
    "tags": ["attention", "cross-attention", "latents", "layernorm", "mlp", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 4, "inputs": 1023, "latents": 64, "heads": 4, "head_dim": 32},
            {"batch": 1, "inputs": 2047, "latents": 128, "heads": 8, "head_dim": 32},
            {"batch": 16, "inputs": 255, "latents": 32, "heads": 2, "head_dim": 64},
        ],
        "gpu": [
            {"batch": 64, "inputs": 8191, "latents": 256, "heads": 8, "head_dim": 64},
            {"batch": 16, "inputs": 16383, "latents": 512, "heads": 8, "head_dim": 128},
            {"batch": 256, "inputs": 2047, "latents": 128, "heads": 16, "head_dim": 64},
        ],
    },
    "ranges": {"batch": [1, 1024], "inputs": [1, 131072], "latents": [1, 2048], "heads": [1, 32],
               "head_dim": [8, 256]},
    "multiple_of": {"head_dim": 8},
    "backward": False,
}

batch = 4
inputs = 1023
latents = 64
heads = 4
head_dim = 32
dim = heads * head_dim


def trained_ln(dim: int) -> nn.LayerNorm:
    norm = nn.LayerNorm(dim)
    with torch.no_grad():
        norm.weight.uniform_(0.5, 1.5)
        norm.bias.normal_(0.0, 0.2)
    return norm


class Model(nn.Module):
    def __init__(self, latents: int, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.latents = nn.Parameter(torch.randn(latents, dim))
        self.ln_latent, self.ln_input, self.ln_mlp = trained_ln(dim), trained_ln(dim), trained_ln(dim)
        self.q = nn.Linear(dim, dim)
        self.kv = nn.Linear(dim, 2 * dim)
        self.proj = nn.Linear(dim, dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, e = x.shape
        lat = self.latents.unsqueeze(0).expand(b, -1, -1)  # (b, latents, dim)
        q = self.q(self.ln_latent(lat)).view(b, -1, self.heads, e // self.heads).transpose(1, 2)
        k, v = self.kv(self.ln_input(x)).view(b, n, 2, self.heads, -1).permute(2, 0, 3, 1, 4)
        attn = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
        lat = lat + self.proj((attn @ v).transpose(1, 2).reshape(b, -1, e))
        return lat + self.fc2(F.gelu(self.fc1(self.ln_mlp(lat))))  # (b, latents, dim)


def get_inputs():
    return [torch.randn(batch, inputs, dim) * 1.5]


def get_init_inputs():
    return [latents, dim, heads]
