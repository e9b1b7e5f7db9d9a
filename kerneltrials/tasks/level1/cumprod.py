"""Inclusive prefix product along the last dimension (memory-bound scan).

Factors are +-(1 + 0.03 * noise): the magnitude of a product is a random walk in log
space (std ~0.03 * sqrt(cols)), so it neither overflows nor underflows, while signs
flip and the values stay far from constant.
"""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["scan", "cumprod", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"rows": 16381, "cols": 255}, {"rows": 2039, "cols": 2047}, {"rows": 65521, "cols": 63}],
        "gpu": [{"rows": 262143, "cols": 255}, {"rows": 16383, "cols": 4095}, {"rows": 1048575, "cols": 63}],
    },
    "ranges": {"rows": [1, 2097152], "cols": [1, 8192]},
    "multiple_of": {},
    "backward": False,
}

rows = 16381
cols = 255


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cumprod(x, dim=1)  # (rows, cols)


def get_inputs():
    signs = torch.where(torch.rand(rows, cols) < 0.5, -1.0, 1.0)
    return [signs * (1.0 + 0.03 * torch.randn(rows, cols))]


def get_init_inputs():
    return []
