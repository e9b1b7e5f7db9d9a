"""ReLU over a 2-D activation tensor (memory-bound elementwise)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["activation", "elementwise", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"rows": 509, "cols": 4093}, {"rows": 64, "cols": 65521}, {"rows": 1000, "cols": 999}],
        "gpu": [{"rows": 8191, "cols": 16384}, {"rows": 4096, "cols": 65535}, {"rows": 16384, "cols": 8191}],
    },
    "ranges": {"rows": [1, 16384], "cols": [1, 65536]},
    "multiple_of": {},
    "backward": False,
}

rows = 509
cols = 4093


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)  # (rows, cols)


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
