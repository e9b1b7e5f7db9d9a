"""float16 variant: scaled matrix product of two inputs followed by a row softmax (attention-score shaped)."""

import math

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["matmul", "softmax", "reduction", "low-precision", "compute-bound"],
    "dtype": "float16",
    "configs": {
        "cpu": [
            {"rows": 1021, "inner": 512, "cols": 1023},
            {"rows": 1024, "inner": 96, "cols": 2047},
            {"rows": 513, "inner": 1500, "cols": 777},
        ],
        "gpu": [
            {"rows": 8191, "inner": 1024, "cols": 8192},
            {"rows": 16384, "inner": 128, "cols": 16383},
            {"rows": 4096, "inner": 4095, "cols": 4096},
        ],
    },
    "ranges": {"rows": [1, 16384], "inner": [8, 8192], "cols": [2, 16384]},
    "multiple_of": {},
    "backward": False,
}

rows = 1021
inner = 512
cols = 1023


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        scores = torch.matmul(a, b) / math.sqrt(a.shape[1])  # (rows, cols)
        return torch.softmax(scores, dim=1)


def get_inputs():
    a = torch.randn(rows, inner) * 1.5
    b = torch.randn(inner, cols)
    return [a, b]


def get_init_inputs():
    return []
