"""RMSNorm written out explicitly: x / sqrt(mean(x^2) + eps) * weight (memory-bound norm), in float16.

The float16 variant of L1/rmsnorm: inputs and parameters are cast to float16 by the
harness, the output is float16, and outputs are compared with the float16 tolerance (1e-2).
"""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["normalization", "rmsnorm", "low-precision", "memory-bound"],
    "dtype": "float16",
    "configs": {
        "cpu": [{"batch": 4, "seq": 511, "hidden": 1023},
                {"batch": 1, "seq": 255, "hidden": 8192},
                {"batch": 16, "seq": 255, "hidden": 320}],
        "gpu": [{"batch": 16, "seq": 2047, "hidden": 4096}, {"batch": 4, "seq": 8191, "hidden": 5120},
                {"batch": 64, "seq": 1025, "hidden": 768}],
    },
    "ranges": {"batch": [1, 128], "seq": [1, 16384], "hidden": [2, 16384]},
    "multiple_of": {},
    "backward": False,
}

batch = 4
seq = 511
hidden = 1023
eps = 1e-6


class Model(nn.Module):
    def __init__(self, hidden: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(1.0 + 0.5 * torch.randn(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean_square = x.pow(2).mean(dim=-1, keepdim=True)  # (batch, seq, 1)
        return x * torch.rsqrt(mean_square + self.eps) * self.weight  # (batch, seq, hidden)


def get_inputs():
    scale = torch.rand(batch, seq, 1) * 5.0 + 0.1
    return [torch.randn(batch, seq, hidden) * scale]


def get_init_inputs():
    return [hidden, eps]
