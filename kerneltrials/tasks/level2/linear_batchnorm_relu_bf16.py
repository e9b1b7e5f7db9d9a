"""bfloat16 variant: linear layer, inference-mode batch norm (running statistics), ReLU (an MLP classifier layer)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["linear", "gemm", "batchnorm", "activation", "low-precision", "compute-bound"],
    "dtype": "bfloat16",
    "configs": {
        "cpu": [
            {"batch": 509, "in_features": 1024, "out_features": 1024},
            {"batch": 64, "in_features": 4095, "out_features": 1000},
            {"batch": 2047, "in_features": 300, "out_features": 500},
        ],
        "gpu": [
            {"batch": 16383, "in_features": 4096, "out_features": 4096},
            {"batch": 4096, "in_features": 8191, "out_features": 2048},
            {"batch": 65536, "in_features": 1024, "out_features": 1000},
        ],
    },
    "ranges": {"batch": [1, 65536], "in_features": [16, 8192], "out_features": [16, 8192]},
    "multiple_of": {},
    "backward": False,
}

batch = 509
in_features = 1024
out_features = 1024
eps = 1e-5


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.bn = nn.BatchNorm1d(out_features, eps=eps)
        with torch.no_grad():  # trained-looking statistics, so the norm is not an identity
            self.bn.running_mean.normal_(0.0, 0.3)
            self.bn.running_var.uniform_(0.2, 2.0)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.normal_(0.0, 0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.linear(x)  # (batch, out_features)
        y = F.batch_norm(y, self.bn.running_mean, self.bn.running_var, self.bn.weight,
                         self.bn.bias, training=False, eps=eps)
        return torch.relu(y)


def get_inputs():
    return [torch.randn(batch, in_features) * 1.5]


def get_init_inputs():
    return [in_features, out_features]
