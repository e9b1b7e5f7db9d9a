"""Maximum over the last dimension of a 2-D tensor (memory-bound reduction)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["reduction", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"rows": 1021, "cols": 4093}, {"rows": 64, "cols": 65521}, {"rows": 32749, "cols": 255}],
        "gpu": [{"rows": 16383, "cols": 8192}, {"rows": 1024, "cols": 131071}, {"rows": 262143, "cols": 255}],
    },
    "ranges": {"rows": [1, 524288], "cols": [1, 262144]},
    "multiple_of": {},
    "backward": False,
}

rows = 1021
cols = 4093


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.max(x, dim=1).values  # (rows, cols) -> (rows,)


def get_inputs():
    # Row-dependent scale and shift, so each row's maximum differs in magnitude and sign.
    scale = torch.rand(rows, 1) * 3.0 + 0.1
    shift = torch.randn(rows, 1) * 4.0
    return [torch.randn(rows, cols) * scale + shift]


def get_init_inputs():
    return []
