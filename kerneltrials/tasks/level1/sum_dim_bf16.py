"""Sum over the middle dimension of a 3-D tensor (memory-bound reduction, strided), in bfloat16.

The bfloat16 variant of L1/sum_dim: inputs and parameters are cast to bfloat16 by the
harness, the output is bfloat16, and outputs are compared with the bfloat16 tolerance (1e-2).
"""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["reduction", "low-precision", "memory-bound"],
    "dtype": "bfloat16",
    "configs": {
        "cpu": [{"batch": 64, "reduce": 511, "inner": 1023},
                {"batch": 24, "reduce": 4093, "inner": 257},
                {"batch": 512, "reduce": 97, "inner": 768}],
        "gpu": [{"batch": 64, "reduce": 4095, "inner": 1024}, {"batch": 16, "reduce": 16383, "inner": 769},
                {"batch": 1024, "reduce": 255, "inner": 4096}],
    },
    "ranges": {"batch": [1, 2048], "reduce": [1, 32768], "inner": [1, 8192]},
    "multiple_of": {},
    "backward": False,
}

batch = 64
reduce = 511
inner = 1023


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.sum(dim=1)  # (batch, reduce, inner) -> (batch, inner)


def get_inputs():
    # A per-column offset keeps sums away from zero-mean noise only.
    offset = torch.randn(1, 1, inner)
    return [torch.randn(batch, reduce, inner) + offset]


def get_init_inputs():
    return []
