"""MoE router: linear gate, softmax over experts, top-k selection, renormalised weights scattered into a dense (tokens, experts) combine matrix."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["linear", "gemm", "moe", "routing", "topk", "softmax", "llm", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"tokens": 4095, "dim": 512, "experts": 64, "top_k": 6},
            {"tokens": 4096, "dim": 1024, "experts": 8, "top_k": 2},
            {"tokens": 4096, "dim": 128, "experts": 128, "top_k": 8},
        ],
        "gpu": [
            {"tokens": 65536, "dim": 4096, "experts": 64, "top_k": 6},
            {"tokens": 131072, "dim": 2048, "experts": 8, "top_k": 2},
            {"tokens": 32768, "dim": 7168, "experts": 256, "top_k": 8},
        ],
    },
    "ranges": {"tokens": [1, 262144], "dim": [16, 8192], "experts": [2, 512], "top_k": [1, 16]},
    "multiple_of": {},
    "backward": False,
}

tokens = 4095
dim = 512
experts = 64
top_k = 6


class Model(nn.Module):
    def __init__(self, dim: int, experts: int, top_k: int):
        super().__init__()
        self.gate = nn.Linear(dim, experts, bias=False)
        self.top_k = min(top_k, experts)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        probs = torch.softmax(self.gate(x), dim=-1)  # (tokens, experts)
        weights, chosen = probs.topk(self.top_k, dim=-1)  # (tokens, top_k)
        weights = weights / weights.sum(dim=-1, keepdim=True)
        return torch.zeros_like(probs).scatter(1, chosen, weights)  # (tokens, experts)


def get_inputs():
    return [torch.randn(tokens, dim) * 2.0]


def get_init_inputs():
    return [dim, experts, top_k]
