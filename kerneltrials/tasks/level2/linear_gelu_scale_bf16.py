"""bfloat16 variant: linear layer, exact (erf) GELU, then a learned per-feature scale (an MLP up-projection)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["linear", "gemm", "activation", "low-precision", "compute-bound"],
    "dtype": "bfloat16",
    "configs": {
        "cpu": [
            {"batch": 509, "in_features": 1024, "out_features": 1000},
            {"batch": 128, "in_features": 2047, "out_features": 1536},
            {"batch": 1000, "in_features": 999, "out_features": 777},
        ],
        "gpu": [
            {"batch": 8191, "in_features": 4096, "out_features": 4096},
            {"batch": 4096, "in_features": 8192, "out_features": 3071},
            {"batch": 16384, "in_features": 2047, "out_features": 4096},
        ],
    },
    "ranges": {"batch": [1, 16384], "in_features": [16, 8192], "out_features": [16, 8192]},
    "multiple_of": {},
    "backward": False,
}

batch = 509
in_features = 1024
out_features = 1000


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = nn.Parameter(1.0 + 0.5 * torch.randn(out_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.linear(x)  # (batch, out_features)
        return F.gelu(y) * self.scale


def get_inputs():
    return [2.0 * torch.randn(batch, in_features)]


def get_init_inputs():
    return [in_features, out_features]
