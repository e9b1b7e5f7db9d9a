"""GELU (exact, erf form) over a 2-D activation tensor (memory-bound elementwise), in float16.

The float16 variant of L1/gelu: inputs and parameters are cast to float16 by the
harness, the output is float16, and outputs are compared with the float16 tolerance (1e-2).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 1,
    "tags": ["activation", "elementwise", "low-precision", "memory-bound"],
    "dtype": "float16",
    "configs": {
        "cpu": [{"rows": 2039, "cols": 8191}, {"rows": 384, "cols": 40009}, {"rows": 4001, "cols": 3071}],
        "gpu": [{"rows": 8191, "cols": 16384}, {"rows": 4096, "cols": 49999}, {"rows": 16384, "cols": 8191}],
    },
    "ranges": {"rows": [1, 16384], "cols": [1, 65536]},
    "multiple_of": {},
    "backward": False,
}

rows = 2039
cols = 8191


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(x)  # (rows, cols)


def get_inputs():
    # Wide enough to reach both tails, where the erf form differs from tanh approximations.
    return [torch.randn(rows, cols) * 2.5]


def get_init_inputs():
    return []
