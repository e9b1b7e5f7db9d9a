"""ReLU over a 2-D activation tensor (memory-bound elementwise), in bfloat16.

The bfloat16 variant of L1/relu: inputs and parameters are cast to bfloat16 by the
harness, the output is bfloat16, and outputs are compared with the bfloat16 tolerance (1e-2).
"""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["activation", "elementwise", "low-precision", "memory-bound"],
    "dtype": "bfloat16",
    "configs": {
        "cpu": [{"rows": 1021, "cols": 4093}, {"rows": 128, "cols": 65521}, {"rows": 8191, "cols": 2047}],
        "gpu": [{"rows": 8191, "cols": 16384}, {"rows": 4096, "cols": 65535}, {"rows": 16384, "cols": 8191}],
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

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)  # (rows, cols)


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
