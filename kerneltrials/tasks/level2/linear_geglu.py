"""GEGLU projection: one linear to 2 * hidden, then GELU(gate) * value (Gemma/T5-style gated MLP input), forward and backward."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["linear", "gemm", "activation", "gating", "llm", "backward", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"tokens": 511, "dim": 512, "hidden": 768},
            {"tokens": 128, "dim": 1023, "hidden": 1365},
            {"tokens": 1000, "dim": 256, "hidden": 500},
        ],
        "gpu": [
            {"tokens": 8192, "dim": 2048, "hidden": 8192},
            {"tokens": 4095, "dim": 4096, "hidden": 11008},
            {"tokens": 16384, "dim": 1024, "hidden": 4095},
        ],
    },
    "ranges": {"tokens": [1, 16384], "dim": [16, 8192], "hidden": [16, 16384]},
    "multiple_of": {},
    "backward": True,
}

tokens = 511
dim = 512
hidden = 768


class Model(nn.Module):
    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.proj = nn.Linear(dim, 2 * hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate, value = self.proj(x).chunk(2, dim=-1)  # (tokens, hidden) each
        return F.gelu(gate) * value


def get_inputs():
    return [torch.randn(tokens, dim) * 1.5]


def get_init_inputs():
    return [dim, hidden]
