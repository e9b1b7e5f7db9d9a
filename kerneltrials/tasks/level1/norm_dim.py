"""L2 norm of every column: ||x[:, j]||_2 over dim 0 (memory-bound strided reduction)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["reduction", "norm", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"rows": 4093, "cols": 1021}, {"rows": 131071, "cols": 31}, {"rows": 255, "cols": 16381}],
        "gpu": [{"rows": 16384, "cols": 16383}, {"rows": 1048575, "cols": 255}, {"rows": 511, "cols": 262143}],
    },
    "ranges": {"rows": [1, 2097152], "cols": [1, 524288]},
    "multiple_of": {},
    "backward": False,
}

rows = 4093
cols = 1021


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.linalg.vector_norm(x, ord=2, dim=0)  # (rows, cols) -> (cols,)


def get_inputs():
    # Column scales over several orders of magnitude.
    return [torch.randn(rows, cols) * torch.exp(torch.randn(1, cols) * 2.0)]


def get_init_inputs():
    return []
