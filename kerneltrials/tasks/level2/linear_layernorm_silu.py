"""Linear layer, LayerNorm, SiLU: forward and backward through a normalised projection."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["linear", "gemm", "layernorm", "activation", "backward", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 511, "in_features": 512, "out_features": 768},
            {"batch": 128, "in_features": 1024, "out_features": 1023},
            {"batch": 2000, "in_features": 200, "out_features": 300},
        ],
        "gpu": [
            {"batch": 16384, "in_features": 2048, "out_features": 2048},
            {"batch": 8191, "in_features": 4096, "out_features": 1024},
            {"batch": 32768, "in_features": 768, "out_features": 3071},
        ],
    },
    "ranges": {"batch": [1, 32768], "in_features": [16, 8192], "out_features": [16, 8192]},
    "multiple_of": {},
    "backward": True,
}

batch = 511
in_features = 512
out_features = 768
eps = 1e-5


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.norm = nn.LayerNorm(out_features, eps=eps)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.normal_(0.0, 0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.norm(self.linear(x))  # (batch, out_features)
        return F.silu(y)


def get_inputs():
    return [torch.randn(batch, in_features) * 1.5]


def get_init_inputs():
    return [in_features, out_features]
