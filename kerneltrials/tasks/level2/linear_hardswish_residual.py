"""Square linear layer, HardSwish, learned scale, residual add of the input (a gated residual MLP step)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["linear", "gemm", "activation", "residual", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 1023, "features": 640},
            {"batch": 256, "features": 1279},
            {"batch": 4000, "features": 300},
        ],
        "gpu": [
            {"batch": 16384, "features": 4096},
            {"batch": 8191, "features": 8192},
            {"batch": 65536, "features": 1023},
        ],
    },
    "ranges": {"batch": [1, 65536], "features": [16, 8192]},
    "multiple_of": {},
    "backward": False,
}

batch = 1023
features = 640


class Model(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.linear = nn.Linear(features, features)
        self.scale = nn.Parameter(0.5 + torch.rand(features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.hardswish(self.linear(x))  # (batch, features)
        return x + self.scale * y


def get_inputs():
    return [torch.randn(batch, features) * 2.0]


def get_init_inputs():
    return [features]
