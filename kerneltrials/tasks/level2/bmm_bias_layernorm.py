"""Batched matrix product of two inputs, a learned bias, then LayerNorm over the last dimension."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["bmm", "matmul", "layernorm", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 8, "rows": 255, "inner": 256, "cols": 384},
            {"batch": 2, "rows": 511, "inner": 1000, "cols": 256},
            {"batch": 32, "rows": 97, "inner": 128, "cols": 255},
        ],
        "gpu": [
            {"batch": 64, "rows": 1023, "inner": 1024, "cols": 1024},
            {"batch": 16, "rows": 4095, "inner": 512, "cols": 2048},
            {"batch": 256, "rows": 255, "inner": 2048, "cols": 767},
        ],
    },
    "ranges": {"batch": [1, 1024], "rows": [1, 8192], "inner": [8, 8192], "cols": [8, 8192]},
    "multiple_of": {},
    "backward": False,
}

batch = 8
rows = 255
inner = 256
cols = 384
eps = 1e-5


class Model(nn.Module):
    def __init__(self, cols: int):
        super().__init__()
        self.bias = nn.Parameter(0.5 * torch.randn(cols))
        self.norm = nn.LayerNorm(cols, eps=eps)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.normal_(0.0, 0.3)

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        y = torch.bmm(a, b) + self.bias  # (batch, rows, cols)
        return self.norm(y)


def get_inputs():
    a = torch.randn(batch, rows, inner)
    b = torch.randn(batch, inner, cols) / inner ** 0.5
    return [a, b]


def get_init_inputs():
    return [cols]
