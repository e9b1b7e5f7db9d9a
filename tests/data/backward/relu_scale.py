"""relu(x) * scale with a learned per-column scale: forward AND backward are checked."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["activation", "elementwise", "memory-bound"],
    "dtype": "float32",
    "configs": {"cpu": [{"rows": 257, "cols": 1021}, {"rows": 64, "cols": 4093}, {"rows": 511, "cols": 333}]},
    "ranges": {"rows": [1, 4096], "cols": [1, 8192]},
    "backward": True,
}

rows = 257
cols = 1021


class Model(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x) * self.scale  # (rows, cols)


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return [cols]
