"""Fused gate/up projection of a SwiGLU MLP: one linear to 2 * hidden, then silu(gate) * up (forward and backward)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["linear", "gemm", "swiglu", "gating", "llm", "backward", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"tokens": 127, "dim": 512, "hidden": 1365},
            {"tokens": 40, "dim": 1024, "hidden": 2730},
            {"tokens": 500, "dim": 256, "hidden": 683},
        ],
        "gpu": [
            {"tokens": 8192, "dim": 4096, "hidden": 11008},
            {"tokens": 16383, "dim": 2048, "hidden": 5632},
            {"tokens": 4096, "dim": 8192, "hidden": 14336},
        ],
    },
    "ranges": {"tokens": [1, 16384], "dim": [16, 8192], "hidden": [16, 16384]},
    "multiple_of": {},
    "backward": True,
}

tokens = 127
dim = 512
hidden = 1365


class Model(nn.Module):
    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.gate_up = nn.Linear(dim, 2 * hidden, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate, up = self.gate_up(x).chunk(2, dim=-1)  # (tokens, hidden) each
        return F.silu(gate) * up


def get_inputs():
    return [torch.randn(tokens, dim) * 1.5]


def get_init_inputs():
    return [dim, hidden]
