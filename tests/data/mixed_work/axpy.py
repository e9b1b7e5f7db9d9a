"""x * 1.7 + y under the mixed policy: the issue's fused-op passthrough (torch.add with
alpha does both ops of the reference in one)."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "policy": "mixed",
    "tags": ["elementwise"],
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

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return x * 1.7 + y  # (rows, cols)


def get_inputs():
    return [torch.randn(rows, cols), torch.randn(rows, cols)]


def get_init_inputs():
    return []
