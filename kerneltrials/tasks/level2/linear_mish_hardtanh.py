"""Linear layer, Mish activation, then hardtanh clipping to [-0.5, 1.0]."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["linear", "gemm", "activation", "clamp", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 300, "in_features": 700, "out_features": 800},
            {"batch": 129, "in_features": 1024, "out_features": 1531},
            {"batch": 1023, "in_features": 200, "out_features": 600},
        ],
        "gpu": [
            {"batch": 8191, "in_features": 2048, "out_features": 4096},
            {"batch": 4096, "in_features": 6143, "out_features": 4096},
            {"batch": 32768, "in_features": 1023, "out_features": 1024},
        ],
    },
    "ranges": {"batch": [1, 32768], "in_features": [16, 8192], "out_features": [16, 8192]},
    "multiple_of": {},
    "backward": False,
}

batch = 300
in_features = 700
out_features = 800
clip_low = -0.5
clip_high = 1.0


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.mish(self.linear(x))  # (batch, out_features)
        return F.hardtanh(y, clip_low, clip_high)


def get_inputs():
    return [torch.randn(batch, in_features) * 1.5]


def get_init_inputs():
    return [in_features, out_features]
