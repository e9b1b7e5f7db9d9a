"""Square linear layer, layer norm, residual add (a post-norm transformer sublayer)."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["linear", "gemm", "layernorm", "residual", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 509, "features": 1024},
            {"batch": 2000, "features": 384},
            {"batch": 129, "features": 1999},
        ],
        "gpu": [
            {"batch": 16383, "features": 4096},
            {"batch": 65536, "features": 1024},
            {"batch": 4095, "features": 8192},
        ],
    },
    "ranges": {"batch": [1, 65536], "features": [16, 8192]},
    "multiple_of": {},
    "backward": False,
}

batch = 509
features = 1024


class Model(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.linear = nn.Linear(features, features)
        self.norm = nn.LayerNorm(features)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.normal_(0.0, 0.2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.linear(x)  # (batch, features)
        return self.norm(y) + x


def get_inputs():
    return [torch.randn(batch, features)]


def get_init_inputs():
    return [features]
