"""Softmax over the last dimension of a 2-D tensor (memory-bound, row reduction + map), in float16.

The float16 variant of L1/softmax: inputs and parameters are cast to float16 by the
harness, the output is float16, and outputs are compared with the float16 tolerance (1e-2).
"""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["softmax", "reduction", "low-precision", "memory-bound"],
    "dtype": "float16",
    "configs": {
        "cpu": [{"rows": 3061, "cols": 4093}, {"rows": 24001, "cols": 511}, {"rows": 288, "cols": 32771}],
        "gpu": [{"rows": 8191, "cols": 16384}, {"rows": 65535, "cols": 1023}, {"rows": 1024, "cols": 131071}],
    },
    "ranges": {"rows": [1, 131072], "cols": [1, 262144]},
    "multiple_of": {},
    "backward": False,
}

rows = 3061
cols = 4093


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=-1)  # (rows, cols)


def get_inputs():
    # Large logits (|x| up to ~40) so a kernel that skips the max subtraction overflows.
    temperature = torch.rand(rows, 1) * 8.0 + 0.5
    return [torch.randn(rows, cols) * temperature + 5.0]


def get_init_inputs():
    return []
