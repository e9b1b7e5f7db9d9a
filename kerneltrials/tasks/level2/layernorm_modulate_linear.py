"""adaLN modulation (DiT): shift and scale regressed from a conditioning vector modulate a LayerNorm without affine, then a linear layer."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["layernorm", "modulation", "linear", "gemm", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 4, "tokens": 256, "dim": 384},
            {"batch": 1, "tokens": 1023, "dim": 512},
            {"batch": 16, "tokens": 63, "dim": 255},
        ],
        "gpu": [
            {"batch": 32, "tokens": 1024, "dim": 1152},
            {"batch": 8, "tokens": 4095, "dim": 768},
            {"batch": 128, "tokens": 256, "dim": 2048},
        ],
    },
    "ranges": {"batch": [1, 512], "tokens": [1, 16384], "dim": [16, 4096]},
    "multiple_of": {},
    "backward": False,
}

batch = 4
tokens = 256
dim = 384
eps = 1e-6


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.modulation = nn.Linear(dim, 2 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, cond: torch.Tensor) -> torch.Tensor:
        shift, scale = self.modulation(F.silu(cond)).unsqueeze(1).chunk(2, dim=-1)  # (b, 1, dim)
        y = F.layer_norm(x, (x.shape[-1],), eps=eps)  # (batch, tokens, dim)
        return self.proj(y * (1.0 + scale) + shift)


def get_inputs():
    x = torch.randn(batch, tokens, dim) * 2.0 + 0.5
    cond = torch.randn(batch, dim)
    return [x, cond]


def get_init_inputs():
    return [dim]
