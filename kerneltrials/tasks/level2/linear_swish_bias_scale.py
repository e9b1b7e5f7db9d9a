"""Linear layer, Swish (x * sigmoid(x)), a second learned bias, then a learned per-feature scale."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["linear", "gemm", "activation", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 511, "in_features": 512, "out_features": 1023},
            {"batch": 192, "in_features": 1500, "out_features": 1024},
            {"batch": 2000, "in_features": 255, "out_features": 511},
        ],
        "gpu": [
            {"batch": 8192, "in_features": 4095, "out_features": 4096},
            {"batch": 2048, "in_features": 8192, "out_features": 8191},
            {"batch": 32767, "in_features": 1024, "out_features": 2048},
        ],
    },
    "ranges": {"batch": [1, 32768], "in_features": [16, 8192], "out_features": [16, 8192]},
    "multiple_of": {},
    "backward": False,
}

batch = 511
in_features = 512
out_features = 1023


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.bias = nn.Parameter(0.5 * torch.randn(out_features))
        self.scale = nn.Parameter(1.0 + 0.5 * torch.randn(out_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.linear(x)  # (batch, out_features)
        y = y * torch.sigmoid(y)
        return (y + self.bias) * self.scale


def get_inputs():
    return [torch.randn(batch, in_features) * 2.0]


def get_init_inputs():
    return [in_features, out_features]
