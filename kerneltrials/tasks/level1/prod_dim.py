"""Product over the middle dimension of a 3-D tensor (memory-bound strided reduction)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["reduction", "prod", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 16, "reduce": 511, "inner": 255},
                {"batch": 6, "reduce": 2047, "inner": 1023},
                {"batch": 1021, "reduce": 63, "inner": 31}],
        "gpu": [{"batch": 128, "reduce": 1023, "inner": 1024},
                {"batch": 16, "reduce": 2047, "inner": 8191},
                {"batch": 16381, "reduce": 63, "inner": 127}],
    },
    "ranges": {"batch": [1, 65536], "reduce": [1, 4096], "inner": [1, 65536]},
    "multiple_of": {},
    "backward": False,
}

batch = 16
reduce = 511
inner = 255


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.prod(x, dim=1)  # (batch, reduce, inner) -> (batch, inner)


def get_inputs():
    # Factors near +-1 (|x| = exp(0.05 * z)): products stay in range for long reductions,
    # and random signs make the sign of every product matter.
    magnitude = torch.exp(torch.randn(batch, reduce, inner) * 0.05)
    sign = torch.where(torch.rand(batch, reduce, inner) < 0.5, -1.0, 1.0)
    return [sign * magnitude]


def get_init_inputs():
    return []
