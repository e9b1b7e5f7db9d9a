"""Linear layer, L2 normalisation of each row, learned per-feature scale (an embedding head)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["linear", "gemm", "normalization", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 1021, "in_features": 1024, "out_features": 512},
            {"batch": 200, "in_features": 2500, "out_features": 1023},
            {"batch": 3000, "in_features": 256, "out_features": 384},
        ],
        "gpu": [
            {"batch": 16383, "in_features": 4096, "out_features": 1024},
            {"batch": 65536, "in_features": 1024, "out_features": 767},
            {"batch": 4096, "in_features": 8192, "out_features": 4095},
        ],
    },
    "ranges": {"batch": [1, 65536], "in_features": [16, 8192], "out_features": [2, 8192]},
    "multiple_of": {},
    "backward": False,
}

batch = 1021
in_features = 1024
out_features = 512


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = nn.Parameter(1.0 + 0.5 * torch.randn(out_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.linear(x)  # (batch, out_features)
        return F.normalize(y, p=2.0, dim=1, eps=1e-12) * self.scale


def get_inputs():
    return [torch.randn(batch, in_features)]


def get_init_inputs():
    return [in_features, out_features]
