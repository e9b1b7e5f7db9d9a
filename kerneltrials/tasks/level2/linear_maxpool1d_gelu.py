"""Linear layer, max pooling over adjacent feature pairs (a maxout unit), GELU."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["linear", "gemm", "pooling", "activation", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 511, "in_features": 512, "out_features": 1024},
            {"batch": 128, "in_features": 1023, "out_features": 2048},
            {"batch": 2000, "in_features": 256, "out_features": 600},
        ],
        "gpu": [
            {"batch": 16384, "in_features": 2048, "out_features": 4096},
            {"batch": 8191, "in_features": 4096, "out_features": 8192},
            {"batch": 32768, "in_features": 1024, "out_features": 2048},
        ],
    },
    "ranges": {"batch": [1, 32768], "in_features": [16, 8192], "out_features": [2, 16384]},
    "multiple_of": {"out_features": 2},
    "backward": False,
}

batch = 511
in_features = 512
out_features = 1024


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.linear(x).unsqueeze(1)  # (batch, 1, out_features)
        y = F.max_pool1d(y, kernel_size=2).squeeze(1)  # (batch, out_features / 2)
        return F.gelu(y)


def get_inputs():
    return [torch.randn(batch, in_features) * 1.5]


def get_init_inputs():
    return [in_features, out_features]
