"""Batched matrix multiplication (b, m, k) @ (b, k, n) (compute-bound batched GEMM), in float16.

The float16 variant of L1/matmul_batched: inputs and parameters are cast to float16 by the
harness, the output is float16, and outputs are compared with the float16 tolerance (1e-2).
"""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["matmul", "bmm", "low-precision", "compute-bound"],
    "dtype": "float16",
    "configs": {
        "cpu": [{"batch": 33, "m": 255, "k": 257, "n": 263},
                {"batch": 24, "m": 255, "k": 512, "n": 193},
                {"batch": 1024, "m": 64, "k": 65, "n": 63}],
        "gpu": [{"batch": 128, "m": 511, "k": 1024, "n": 513}, {"batch": 16, "m": 2047, "k": 2049, "n": 1024},
                {"batch": 1024, "m": 127, "k": 256, "n": 129}],
    },
    "ranges": {"batch": [1, 4096], "m": [1, 4096], "k": [1, 4096], "n": [1, 4096]},
    "multiple_of": {},
    "backward": False,
}

batch = 33
m = 255
k = 257
n = 263


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.bmm(a, b)  # (batch, m, k) @ (batch, k, n) -> (batch, m, n)


def get_inputs():
    # Per-batch scales so batches cannot be mixed up without the output changing.
    scale = torch.rand(batch, 1, 1) * 2.0 + 0.2
    return [torch.randn(batch, m, k) * scale, torch.randn(batch, k, n)]


def get_init_inputs():
    return []
