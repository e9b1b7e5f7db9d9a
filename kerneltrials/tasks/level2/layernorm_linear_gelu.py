"""Layer norm, linear layer, GELU (the first half of a pre-norm transformer MLP)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["layernorm", "linear", "gemm", "activation", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 509, "in_features": 768, "out_features": 1024},
            {"batch": 128, "in_features": 1999, "out_features": 2048},
            {"batch": 1500, "in_features": 384, "out_features": 777},
        ],
        "gpu": [
            {"batch": 16383, "in_features": 4096, "out_features": 4096},
            {"batch": 4096, "in_features": 2047, "out_features": 8192},
            {"batch": 65536, "in_features": 768, "out_features": 3072},
        ],
    },
    "ranges": {"batch": [1, 65536], "in_features": [16, 8192], "out_features": [16, 16384]},
    "multiple_of": {},
    "backward": False,
}

batch = 509
in_features = 768
out_features = 1024


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.norm = nn.LayerNorm(in_features)
        self.linear = nn.Linear(in_features, out_features)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.normal_(0.0, 0.2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.linear(self.norm(x))  # (batch, out_features)
        return F.gelu(y)


def get_inputs():
    # Rows with different offsets and scales, so the normalisation matters.
    x = torch.randn(batch, in_features)
    return [x * (0.5 + 2.0 * torch.rand(batch, 1)) + torch.randn(batch, 1)]


def get_init_inputs():
    return [in_features, out_features]
