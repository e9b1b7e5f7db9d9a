"""Softmax over the first dimension of a 3-D tensor (memory-bound, strided reduction)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["softmax", "strided", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"d0": 63, "d1": 255, "d2": 129},
                {"d0": 1021, "d1": 8, "d2": 255},
                {"d0": 7, "d1": 1021, "d2": 511}],
        "gpu": [{"d0": 255, "d1": 1024, "d2": 513},
                {"d0": 8191, "d1": 32, "d2": 511},
                {"d0": 15, "d1": 16383, "d2": 1023}],
    },
    "ranges": {"d0": [1, 65536], "d1": [1, 65536], "d2": [1, 65536]},
    "multiple_of": {},
    "backward": False,
}

d0 = 63
d1 = 255
d2 = 129


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Each (j, k) column along dim 0 is normalised: (d0, d1, d2)
        return torch.softmax(x, dim=0)


def get_inputs():
    return [torch.randn(d0, d1, d2) * 3.0 + torch.randn(1, d1, d2) * 10.0]


def get_init_inputs():
    return []
