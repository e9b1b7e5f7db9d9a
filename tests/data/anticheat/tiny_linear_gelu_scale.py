"""Linear, exact GELU, per-feature scale on small shapes: the corpus's level-2 (mixed) task."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["linear", "activation"],
    "dtype": "float32",
    "configs": {"cpu": [{"batch": 48, "in_features": 96, "out_features": 80}],
                "gpu": [{"batch": 48, "in_features": 96, "out_features": 80}]},
    "ranges": {"batch": [8, 128], "in_features": [16, 256], "out_features": [16, 256]},
    "multiple_of": {},
    "backward": False,
}

batch = 48
in_features = 96
out_features = 80


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = nn.Parameter(1.0 + 0.5 * torch.randn(out_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.linear(x)) * self.scale  # (batch, out_features)


def get_inputs():
    return [torch.randn(batch, in_features)]


def get_init_inputs():
    return [in_features, out_features]
