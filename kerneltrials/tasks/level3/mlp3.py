"""Three-layer MLP: linear, ReLU, linear, ReLU, linear."""

import torch
import torch.nn as nn

TASK = {
    "level": 3,
    "tags": ["mlp", "linear", "gemm", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 509, "in_features": 1024, "hidden": 1024, "out_features": 1000},
            {"batch": 128, "in_features": 2047, "hidden": 3000, "out_features": 512},
            {"batch": 2000, "in_features": 256, "hidden": 511, "out_features": 10},
        ],
        "gpu": [
            {"batch": 16383, "in_features": 4096, "hidden": 4096, "out_features": 4096},
            {"batch": 4096, "in_features": 8191, "hidden": 12288, "out_features": 1024},
            {"batch": 65536, "in_features": 1024, "hidden": 2047, "out_features": 10},
        ],
    },
    "ranges": {"batch": [1, 65536], "in_features": [8, 16384], "hidden": [8, 16384],
               "out_features": [1, 8192]},
    "multiple_of": {},
    "backward": False,
}

batch = 509
in_features = 1024
hidden = 1024
out_features = 1000


class Model(nn.Module):
    def __init__(self, in_features: int, hidden: int, out_features: int):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc3 = nn.Linear(hidden, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.fc1(x))  # (batch, hidden)
        h = torch.relu(self.fc2(h))  # (batch, hidden)
        return self.fc3(h)  # (batch, out_features)


def get_inputs():
    return [torch.randn(batch, in_features) * 2.0]


def get_init_inputs():
    return [in_features, hidden, out_features]
