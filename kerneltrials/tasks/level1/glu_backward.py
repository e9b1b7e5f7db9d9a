"""GLU over the last dimension: a * sigmoid(b) for the two halves, forward and backward."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 1,
    "tags": ["activation", "glu", "elementwise", "backward", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"tokens": 4093, "hidden2": 2046}, {"tokens": 257, "hidden2": 22018}, {"tokens": 27001, "hidden2": 384}],
        "gpu": [{"tokens": 16383, "hidden2": 8192}, {"tokens": 4095, "hidden2": 28672}, {"tokens": 131071, "hidden2": 1534}],
    },
    "ranges": {"tokens": [1, 262144], "hidden2": [2, 65536]},
    "multiple_of": {"hidden2": 2},  # the last dimension splits into two equal halves
    "backward": True,
}

tokens = 4093
hidden2 = 2046


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.glu(x, dim=-1)  # (tokens, hidden2) -> (tokens, hidden2 / 2)


def get_inputs():
    return [torch.randn(tokens, hidden2) * 2.0]


def get_init_inputs():
    return []
