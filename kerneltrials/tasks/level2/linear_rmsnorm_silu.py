"""Linear layer, RMS normalisation with a learned gain, SiLU (as in Llama-style projections)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["linear", "gemm", "rmsnorm", "activation", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 509, "in_features": 1024, "out_features": 1024},
            {"batch": 128, "in_features": 2999, "out_features": 1536},
            {"batch": 1800, "in_features": 256, "out_features": 999},
        ],
        "gpu": [
            {"batch": 16383, "in_features": 4096, "out_features": 4096},
            {"batch": 4096, "in_features": 11008, "out_features": 4095},
            {"batch": 65536, "in_features": 1024, "out_features": 2048},
        ],
    },
    "ranges": {"batch": [1, 65536], "in_features": [16, 16384], "out_features": [16, 8192]},
    "multiple_of": {},
    "backward": False,
}

batch = 509
in_features = 1024
out_features = 1024
eps = 1e-6


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.gain = nn.Parameter(1.0 + 0.3 * torch.randn(out_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.linear(x)  # (batch, out_features)
        y = F.rms_norm(y, (y.shape[1],), self.gain, eps)  # y / sqrt(mean(y^2) + eps) * gain
        return F.silu(y)


def get_inputs():
    x = torch.randn(batch, in_features)
    return [x * (0.25 + 3.0 * torch.rand(batch, 1))]  # rows of different scales


def get_init_inputs():
    return [in_features, out_features]
