"""Linear layer whose SiLU output gates a second stream, plus that stream as a residual."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["linear", "gemm", "activation", "gating", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 511, "in_features": 1024, "out_features": 768},
            {"batch": 96, "in_features": 3001, "out_features": 1024},
            {"batch": 1200, "in_features": 513, "out_features": 1111},
        ],
        "gpu": [
            {"batch": 8191, "in_features": 4096, "out_features": 4096},
            {"batch": 2048, "in_features": 12288, "out_features": 4095},
            {"batch": 16384, "in_features": 1023, "out_features": 8192},
        ],
    },
    "ranges": {"batch": [1, 16384], "in_features": [16, 16384], "out_features": [16, 8192]},
    "multiple_of": {},
    "backward": False,
}

batch = 511
in_features = 1024
out_features = 768


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
        gate = F.silu(self.linear(x))  # (batch, out_features)
        return gate * z + z


def get_inputs():
    x = torch.randn(batch, in_features) * 1.5
    z = torch.randn(batch, out_features)
    return [x, z]


def get_init_inputs():
    return [in_features, out_features]
