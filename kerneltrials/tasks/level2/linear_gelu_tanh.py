"""Linear layer and tanh-approximated GELU, forward and backward (a GPT-2 MLP up-projection)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["linear", "gemm", "activation", "backward", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 255, "in_features": 768, "out_features": 1000},
            {"batch": 128, "in_features": 1023, "out_features": 2048},
            {"batch": 1000, "in_features": 333, "out_features": 777},
        ],
        "gpu": [
            {"batch": 8191, "in_features": 4096, "out_features": 4096},
            {"batch": 4096, "in_features": 2047, "out_features": 8192},
            {"batch": 16384, "in_features": 1024, "out_features": 3071},
        ],
    },
    "ranges": {"batch": [1, 16384], "in_features": [16, 8192], "out_features": [16, 8192]},
    "multiple_of": {},
    "backward": True,
}

batch = 255
in_features = 768
out_features = 1000


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.linear(x)  # (batch, out_features)
        return F.gelu(y, approximate="tanh")


def get_inputs():
    return [torch.randn(batch, in_features) * 1.5]


def get_init_inputs():
    return [in_features, out_features]
