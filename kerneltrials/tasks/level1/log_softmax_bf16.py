"""Log-softmax over the class dimension (memory-bound, row reduction + map), in bfloat16.

The bfloat16 variant of L1/log_softmax: inputs and parameters are cast to bfloat16 by the
harness, the output is bfloat16, and outputs are compared with the bfloat16 tolerance (1e-2).
"""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["softmax", "reduction", "low-precision", "memory-bound"],
    "dtype": "bfloat16",
    "configs": {
        "cpu": [{"batch": 4093, "classes": 2047},
                {"batch": 256, "classes": 32001},
                {"batch": 32749, "classes": 257}],
        "gpu": [{"batch": 16383, "classes": 8192}, {"batch": 2048, "classes": 128257}, {"batch": 131071, "classes": 1023}],
    },
    "ranges": {"batch": [1, 262144], "classes": [2, 262144]},
    "multiple_of": {},
    "backward": False,
}

batch = 4093
classes = 2047


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits: torch.Tensor) -> torch.Tensor:
        return torch.log_softmax(logits, dim=1)  # (batch, classes)


def get_inputs():
    # Mostly noise plus a few strongly preferred classes per row, like a trained model.
    logits = torch.randn(batch, classes) * 1.5
    peaks = torch.randint(0, classes, (batch, 4))
    logits.scatter_add_(1, peaks, torch.rand(batch, 4) * 20.0)
    return [logits]


def get_init_inputs():
    return []
