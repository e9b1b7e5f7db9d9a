"""bfloat16 SwiGLU feed-forward block (Llama style): w2(silu(w1 x) * w3 x), no biases."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 3,
    "tags": ["mlp", "swiglu", "gemm", "gating", "llm", "low-precision", "compute-bound"],
    "dtype": "bfloat16",
    "configs": {
        "cpu": [
            {"tokens": 509, "dim": 512, "hidden": 1376},
            {"tokens": 128, "dim": 1024, "hidden": 2731},
            {"tokens": 2000, "dim": 256, "hidden": 683},
        ],
        "gpu": [
            {"tokens": 16383, "dim": 4096, "hidden": 11008},
            {"tokens": 4096, "dim": 8192, "hidden": 14336},
            {"tokens": 65536, "dim": 1024, "hidden": 2731},
        ],
    },
    "ranges": {"tokens": [1, 65536], "dim": [8, 8192], "hidden": [8, 16384]},
    "multiple_of": {},
    "backward": False,
}

tokens = 509
dim = 512
hidden = 1376


class Model(nn.Module):
    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden, bias=False)  # gate
        self.w3 = nn.Linear(dim, hidden, bias=False)  # up
        self.w2 = nn.Linear(hidden, dim, bias=False)  # down

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = F.silu(self.w1(x)) * self.w3(x)  # (tokens, hidden)
        return self.w2(h)  # (tokens, dim)


def get_inputs():
    return [torch.randn(tokens, dim) * 2.0]


def get_init_inputs():
    return [dim, hidden]
