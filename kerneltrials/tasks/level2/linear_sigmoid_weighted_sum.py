"""Linear layer, sigmoid gate, then a learned signed weighted sum over features (a scoring head)."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["linear", "gemm", "activation", "reduction", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 1021, "in_features": 768, "out_features": 1024},
            {"batch": 256, "in_features": 2047, "out_features": 999},
            {"batch": 2000, "in_features": 333, "out_features": 1536},
        ],
        "gpu": [
            {"batch": 16383, "in_features": 4096, "out_features": 4096},
            {"batch": 65536, "in_features": 1024, "out_features": 2047},
            {"batch": 4096, "in_features": 8191, "out_features": 4096},
        ],
    },
    "ranges": {"batch": [1, 65536], "in_features": [16, 8192], "out_features": [16, 8192]},
    "multiple_of": {},
    "backward": False,
}

batch = 1021
in_features = 768
out_features = 1024


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.readout = nn.Parameter(torch.randn(out_features) / out_features ** 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate = torch.sigmoid(self.linear(x))  # (batch, out_features)
        return (gate * self.readout).sum(dim=1, keepdim=True)  # (batch, 1)


def get_inputs():
    return [torch.randn(batch, in_features) * 2.0]


def get_init_inputs():
    return [in_features, out_features]
