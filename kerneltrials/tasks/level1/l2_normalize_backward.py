"""L2 normalisation of each row, x / max(||x||_2, eps), forward and backward (memory-bound)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 1,
    "tags": ["normalization", "l2norm", "backward", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"rows": 1531, "cols": 1023}, {"rows": 47, "cols": 32771}, {"rows": 12281, "cols": 127}],
        "gpu": [{"rows": 65535, "cols": 4096}, {"rows": 2048, "cols": 131071}, {"rows": 524287, "cols": 255}],
    },
    "ranges": {"rows": [1, 1048576], "cols": [2, 262144]},
    "multiple_of": {},
    "backward": True,
}

rows = 1531
cols = 1023
eps = 1e-12


class Model(nn.Module):
    def __init__(self, eps: float):
        super().__init__()
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.normalize(x, p=2.0, dim=1, eps=self.eps)  # (rows, cols)


def get_inputs():
    # Row norms spread over orders of magnitude, and a shared direction between rows.
    scale = torch.exp(torch.randn(rows, 1) * 1.5)
    return [(torch.randn(rows, cols) + 0.3) * scale]


def get_init_inputs():
    return [eps]
