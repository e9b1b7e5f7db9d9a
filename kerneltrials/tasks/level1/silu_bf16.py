"""SiLU (x * sigmoid(x)) over a 3-D activation tensor (memory-bound elementwise), in bfloat16.

The bfloat16 variant of L1/silu: inputs and parameters are cast to bfloat16 by the
harness, the output is bfloat16, and outputs are compared with the bfloat16 tolerance (1e-2).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 1,
    "tags": ["activation", "elementwise", "low-precision", "memory-bound"],
    "dtype": "bfloat16",
    "configs": {
        "cpu": [{"batch": 24, "seq": 255, "hidden": 1023},
                {"batch": 9, "seq": 1001, "hidden": 768},
                {"batch": 48, "seq": 97, "hidden": 1536}],
        "gpu": [{"batch": 32, "seq": 2047, "hidden": 4096}, {"batch": 8, "seq": 4096, "hidden": 11007},
                {"batch": 64, "seq": 1023, "hidden": 2560}],
    },
    "ranges": {"batch": [1, 128], "seq": [1, 8192], "hidden": [1, 16384]},
    "multiple_of": {},
    "backward": False,
}

batch = 24
seq = 255
hidden = 1023


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.silu(x)  # (batch, seq, hidden)


def get_inputs():
    return [torch.randn(batch, seq, hidden) * 3.0]


def get_init_inputs():
    return []
