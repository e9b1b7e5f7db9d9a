"""(|x| + 0.5) ** e with a per-element fractional exponent (memory-bound, transcendental)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["elementwise", "pow", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"rows": 509, "cols": 4093}, {"rows": 16, "cols": 131071}, {"rows": 2001, "cols": 767}],
        "gpu": [{"rows": 8191, "cols": 16384}, {"rows": 1024, "cols": 262143}, {"rows": 32767, "cols": 3071}],
    },
    "ranges": {"rows": [1, 65536], "cols": [1, 524288]},
    "multiple_of": {},
    "backward": False,
}

rows = 509
cols = 4093
shift = 0.5


class Model(nn.Module):
    def __init__(self, shift: float):
        super().__init__()
        self.shift = shift

    def forward(self, x: torch.Tensor, exponent: torch.Tensor) -> torch.Tensor:
        # The base is shifted positive, so fractional exponents stay real.
        return torch.pow(x.abs() + self.shift, exponent)  # (rows, cols), (rows, cols)


def get_inputs():
    x = torch.randn(rows, cols) * 1.5
    exponent = torch.randn(rows, cols) * 0.8 + 0.5  # fractional, signed
    return [x, exponent]


def get_init_inputs():
    return [shift]
