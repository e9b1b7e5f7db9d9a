"""The logistic function written out (negate, exp, add, reciprocal) under the mixed
policy: one fused PyTorch op (torch.sigmoid) does all four."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "policy": "mixed",
    "tags": ["activation", "elementwise"],
    "dtype": "float32",
    "configs": {"cpu": [{"rows": 64, "cols": 257}], "gpu": [{"rows": 64, "cols": 257}]},
    "ranges": {"rows": [8, 128], "cols": [8, 512]},
    "multiple_of": {},
    "backward": False,
}

rows = 64
cols = 257


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return 1.0 / (1.0 + torch.exp(-x))  # (rows, cols)


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
