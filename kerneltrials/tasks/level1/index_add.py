"""Row-wise index_add: out = base; out[index[i]] += alpha * source[i] (memory-bound scatter).

The pattern of an embedding gradient: many source rows land on the same frequent row.
"""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["indexing", "index_add", "scatter", "atomic", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"table_rows": 8191, "dim": 256, "sources": 16381},
                {"table_rows": 50021, "dim": 64, "sources": 65521},
                {"table_rows": 1021, "dim": 1023, "sources": 4093}],
        "gpu": [{"table_rows": 65535, "dim": 1024, "sources": 131071},
                {"table_rows": 128257, "dim": 256, "sources": 524287},
                {"table_rows": 8191, "dim": 4095, "sources": 32767}],
    },
    "ranges": {"table_rows": [1, 1048576], "dim": [1, 16384], "sources": [1, 4194304]},
    "multiple_of": {},
    "backward": False,
}

table_rows = 8191
dim = 256
sources = 16381
alpha = -0.5


class Model(nn.Module):
    def __init__(self, alpha: float):
        super().__init__()
        self.alpha = alpha

    def forward(self, base: torch.Tensor, index: torch.Tensor, source: torch.Tensor) -> torch.Tensor:
        # (table_rows, dim), (sources,) int64, (sources, dim) -> (table_rows, dim)
        return torch.index_add(base, 0, index, source, alpha=self.alpha)


def get_inputs():
    base = torch.randn(table_rows, dim)
    # Zipf-like rows: a few hot rows collect many updates.
    ranks = torch.randint(1, table_rows + 1, (sources,)).double()
    index = (table_rows * (ranks / table_rows) ** 3).long().clamp_(0, table_rows - 1)
    source = torch.randn(sources, dim) * 0.5
    return [base, index, source]


def get_init_inputs():
    return [alpha]
