"""Broadcasting binary ops: (x - row_offset) / col_scale (memory-bound elementwise)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["elementwise", "broadcast", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"rows": 1021, "cols": 4093}, {"rows": 31, "cols": 131071}, {"rows": 16381, "cols": 511}],
        "gpu": [{"rows": 16383, "cols": 16384}, {"rows": 1024, "cols": 262143}, {"rows": 262143, "cols": 511}],
    },
    "ranges": {"rows": [1, 524288], "cols": [1, 524288]},
    "multiple_of": {},
    "backward": False,
}

rows = 1021
cols = 4093


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, offset: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        # (rows, cols) - (rows, 1) -> (rows, cols); / (1, cols) -> (rows, cols)
        return torch.div(torch.sub(x, offset), scale)


def get_inputs():
    x = torch.randn(rows, cols) * 2.0
    offset = torch.randn(rows, 1) * 3.0
    # Signed scales bounded away from zero, so the quotient stays finite.
    sign = torch.where(torch.rand(1, cols) < 0.5, -1.0, 1.0)
    scale = sign * (torch.rand(1, cols) * 2.0 + 0.5)
    return [x, offset, scale]


def get_init_inputs():
    return []
