"""Linear layer and squared ReLU (Primer / modded-nanoGPT MLP activation), then a learned output scale."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["linear", "gemm", "activation", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 511, "in_features": 512, "out_features": 1023},
            {"batch": 128, "in_features": 1024, "out_features": 2048},
            {"batch": 2000, "in_features": 300, "out_features": 500},
        ],
        "gpu": [
            {"batch": 16384, "in_features": 768, "out_features": 3072},
            {"batch": 8191, "in_features": 4096, "out_features": 4096},
            {"batch": 32768, "in_features": 1024, "out_features": 4095},
        ],
    },
    "ranges": {"batch": [1, 32768], "in_features": [16, 8192], "out_features": [16, 16384]},
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
        self.scale = nn.Parameter(0.5 + torch.rand(out_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.linear(x))  # (batch, out_features)
        return y.square() * self.scale


def get_inputs():
    return [torch.randn(batch, in_features)]


def get_init_inputs():
    return [in_features, out_features]
