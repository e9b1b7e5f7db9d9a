"""Mixture of experts: softmax router, top-2 experts per token (renormalised weights), GELU expert MLPs."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 3,
    "tags": ["moe", "routing", "gather-scatter", "gemm", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"tokens": 1021, "dim": 256, "hidden": 512, "experts": 8},
            {"tokens": 300, "dim": 512, "hidden": 1023, "experts": 4},
            {"tokens": 2048, "dim": 128, "hidden": 200, "experts": 16},
        ],
        "gpu": [
            {"tokens": 16383, "dim": 1024, "hidden": 4096, "experts": 8},
            {"tokens": 4096, "dim": 4096, "hidden": 2048, "experts": 16},
            {"tokens": 65536, "dim": 512, "hidden": 1023, "experts": 64},
        ],
    },
    "ranges": {"tokens": [1, 65536], "dim": [8, 8192], "hidden": [8, 16384], "experts": [2, 128]},
    "multiple_of": {},
    "backward": False,
}

tokens = 1021
dim = 256
hidden = 512
experts = 8
top_k = 2


class Model(nn.Module):
    def __init__(self, dim: int, hidden: int, experts: int):
        super().__init__()
        self.router = nn.Linear(dim, experts, bias=False)
        self.w1 = nn.Parameter(torch.randn(experts, dim, hidden) / dim ** 0.5)
        self.b1 = nn.Parameter(0.1 * torch.randn(experts, hidden))
        self.w2 = nn.Parameter(torch.randn(experts, hidden, dim) / hidden ** 0.5)
        self.b2 = nn.Parameter(0.1 * torch.randn(experts, dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        probs = torch.softmax(self.router(x), dim=1)  # (tokens, experts)
        weights, chosen = probs.topk(top_k, dim=1)  # (tokens, top_k)
        weights = weights / weights.sum(dim=1, keepdim=True)
        out = torch.zeros_like(x)  # (tokens, dim)
        for e in range(self.w1.shape[0]):
            token_index, slot = (chosen == e).nonzero(as_tuple=True)
            if token_index.numel() == 0:
                continue
            h = F.gelu(x[token_index] @ self.w1[e] + self.b1[e])  # (routed, hidden)
            y = h @ self.w2[e] + self.b2[e]  # (routed, dim)
            out.index_add_(0, token_index, y * weights[token_index, slot].unsqueeze(1))
        return out


def get_inputs():
    return [torch.randn(tokens, dim) * 2.0]


def get_init_inputs():
    return [dim, hidden, experts]
