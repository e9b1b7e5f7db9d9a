"""bfloat16 fused gate/up projection of a SwiGLU MLP: one linear to 2 * hidden, then silu(gate) * up."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["linear", "gemm", "swiglu", "gating", "llm", "low-precision", "compute-bound"],
    "dtype": "bfloat16",
    "configs": {
        "cpu": [
            {"tokens": 511, "dim": 1024, "hidden": 1365},
            {"tokens": 128, "dim": 2048, "hidden": 2730},
            {"tokens": 2000, "dim": 512, "hidden": 683},
        ],
        "gpu": [
            {"tokens": 8192, "dim": 4096, "hidden": 11008},
            {"tokens": 16383, "dim": 2048, "hidden": 5632},
            {"tokens": 4096, "dim": 8192, "hidden": 14336},
        ],
    },
    "ranges": {"tokens": [1, 16384], "dim": [16, 8192], "hidden": [16, 16384]},
    "multiple_of": {},
    "backward": False,
}

tokens = 511
dim = 1024
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
