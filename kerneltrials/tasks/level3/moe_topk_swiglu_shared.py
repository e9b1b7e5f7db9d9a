"""DeepSeek-style MoE layer: softmax router, top-k of many fine-grained SwiGLU experts (weights renormalised), plus an always-on shared SwiGLU expert."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 3,
    "tags": ["moe", "routing", "swiglu", "gather-scatter", "gemm", "llm", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"tokens": 509, "dim": 256, "hidden": 128, "experts": 16, "top_k": 4},
            {"tokens": 128, "dim": 512, "hidden": 255, "experts": 8, "top_k": 2},
            {"tokens": 1023, "dim": 128, "hidden": 64, "experts": 32, "top_k": 6},
        ],
        "gpu": [
            {"tokens": 16384, "dim": 2048, "hidden": 1408, "experts": 64, "top_k": 6},
            {"tokens": 8191, "dim": 4096, "hidden": 2048, "experts": 16, "top_k": 2},
            {"tokens": 32768, "dim": 1024, "hidden": 512, "experts": 128, "top_k": 8},
        ],
    },
    "ranges": {"tokens": [1, 65536], "dim": [8, 8192], "hidden": [8, 8192], "experts": [2, 256],
               "top_k": [1, 16]},
    "multiple_of": {},
    "backward": False,
}

tokens = 509
dim = 256
hidden = 128
experts = 16
top_k = 4


class Model(nn.Module):
    def __init__(self, dim: int, hidden: int, experts: int, top_k: int):
        super().__init__()
        self.top_k = min(top_k, experts)
        self.router = nn.Linear(dim, experts, bias=False)
        self.w_gate = nn.Parameter(torch.randn(experts, dim, hidden) / dim ** 0.5)
        self.w_up = nn.Parameter(torch.randn(experts, dim, hidden) / dim ** 0.5)
        self.w_down = nn.Parameter(torch.randn(experts, hidden, dim) / hidden ** 0.5)
        self.shared_gate_up = nn.Linear(dim, 2 * hidden, bias=False)
        self.shared_down = nn.Linear(hidden, dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        probs = torch.softmax(self.router(x), dim=-1)  # (tokens, experts)
        weights, chosen = probs.topk(self.top_k, dim=-1)  # (tokens, top_k)
        weights = weights / weights.sum(dim=-1, keepdim=True)
        gate, up = self.shared_gate_up(x).chunk(2, dim=-1)
        out = self.shared_down(F.silu(gate) * up)  # (tokens, dim)
        for e in range(self.w_gate.shape[0]):
            token_index, slot = (chosen == e).nonzero(as_tuple=True)
            if token_index.numel() == 0:
                continue
            xe = x[token_index]  # (routed, dim)
            y = (F.silu(xe @ self.w_gate[e]) * (xe @ self.w_up[e])) @ self.w_down[e]
            out = out.index_add(0, token_index, y * weights[token_index, slot].unsqueeze(1))
        return out


def get_inputs():
    return [torch.randn(tokens, dim) * 2.0]


def get_init_inputs():
    return [dim, hidden, experts, top_k]
