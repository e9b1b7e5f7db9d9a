"""Log-cumulative-sum-exp along the last dimension, forward and backward (memory-bound scan).

out[i, j] = log(sum_{k <= j} exp(x[i, k])), computed stably for large inputs.
"""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["scan", "logcumsumexp", "backward", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"rows": 63, "cols": 2047}, {"rows": 2, "cols": 65521}, {"rows": 1021, "cols": 127}],
        "gpu": [{"rows": 8191, "cols": 16384}, {"rows": 256, "cols": 524287}, {"rows": 262143, "cols": 511}],
    },
    "ranges": {"rows": [1, 524288], "cols": [1, 1048576]},
    "multiple_of": {},
    "backward": True,
}

rows = 63
cols = 2047


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.logcumsumexp(x, dim=1)  # (rows, cols)


def get_inputs():
    # Magnitudes up to ~100: exp overflows in float32 unless the running max is subtracted.
    return [torch.randn(rows, cols) * 3.0 + torch.randn(rows, 1) * 30.0]


def get_init_inputs():
    return []
