"""(a + b) * c over three same-shaped tensors (memory-bound elementwise, 3 inputs), in bfloat16.

The bfloat16 variant of L1/add_mul: inputs and parameters are cast to bfloat16 by the
harness, the output is bfloat16, and outputs are compared with the bfloat16 tolerance (1e-2).
"""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["elementwise", "binary", "low-precision", "memory-bound"],
    "dtype": "bfloat16",
    "configs": {
        "cpu": [{"rows": 1021, "cols": 4093}, {"rows": 96, "cols": 65521}, {"rows": 2999, "cols": 1999}],
        "gpu": [{"rows": 8191, "cols": 8192}, {"rows": 1024, "cols": 65521}, {"rows": 12287, "cols": 4095}],
    },
    "ranges": {"rows": [1, 16384], "cols": [1, 65536]},
    "multiple_of": {},
    "backward": False,
}

rows = 1021
cols = 4093


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        return (a + b) * c  # (rows, cols)


def get_inputs():
    a = torch.randn(rows, cols)
    b = torch.randn(rows, cols) * 0.5 + 1.0
    c = torch.randn(rows, cols) * 2.0
    return [a, b, c]


def get_init_inputs():
    return []
