"""Linear layer, group normalisation over feature groups, hardtanh clipping to [-2, 2]."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["linear", "gemm", "groupnorm", "clamp", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 255, "in_features": 768, "groups": 16, "group_size": 48},
            {"batch": 64, "in_features": 2047, "groups": 8, "group_size": 200},
            {"batch": 1000, "in_features": 300, "groups": 32, "group_size": 15},
        ],
        "gpu": [
            {"batch": 8192, "in_features": 4096, "groups": 32, "group_size": 128},
            {"batch": 16383, "in_features": 2048, "groups": 16, "group_size": 255},
            {"batch": 4096, "in_features": 8191, "groups": 64, "group_size": 96},
        ],
    },
    "ranges": {"batch": [1, 16384], "in_features": [16, 8192], "groups": [1, 128],
               "group_size": [2, 1024]},
    "multiple_of": {},
    "backward": False,
}

batch = 255
in_features = 768
groups = 16
group_size = 48
out_features = groups * group_size


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int, groups: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.norm = nn.GroupNorm(groups, out_features)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 2.0)
            self.norm.bias.normal_(0.0, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.norm(self.linear(x))  # (batch, out_features)
        return F.hardtanh(y, -2.0, 2.0)


def get_inputs():
    return [torch.randn(batch, in_features) + 0.5 * torch.randn(batch, 1)]


def get_init_inputs():
    return [in_features, out_features, groups]
