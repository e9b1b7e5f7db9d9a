"""GELU with the tanh approximation, forward and backward (memory-bound elementwise)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 1,
    "tags": ["activation", "elementwise", "backward", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"tokens": 2047, "hidden": 1023}, {"tokens": 255, "hidden": 8192}, {"tokens": 5003, "hidden": 384}],
        "gpu": [{"tokens": 16383, "hidden": 4096}, {"tokens": 4095, "hidden": 14336}, {"tokens": 131071, "hidden": 767}],
    },
    "ranges": {"tokens": [1, 262144], "hidden": [1, 32768]},
    "multiple_of": {},
    "backward": True,
}

tokens = 2047
hidden = 1023


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # The tanh form, not erf: a kernel computing exact GELU is off by up to ~1e-3.
        return F.gelu(x, approximate="tanh")  # (tokens, hidden)


def get_inputs():
    return [torch.randn(tokens, hidden) * 2.0 + torch.randn(tokens, 1) * 0.5]


def get_init_inputs():
    return []
