"""DLRM-style recommender: bottom MLP on dense features, embedding lookups for sparse features, pairwise dot-product interactions, top MLP to a click logit."""

import torch
import torch.nn as nn

TASK = {
    "level": 3,
    "tags": ["recsys", "dlrm", "embedding", "mlp", "interaction", "bmm", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 512, "dense": 13, "tables": 8, "rows": 100000, "dim": 64},
            {"batch": 512, "dense": 32, "tables": 26, "rows": 20000, "dim": 32},
            {"batch": 2048, "dense": 13, "tables": 4, "rows": 50000, "dim": 16},
        ],
        "gpu": [
            {"batch": 16384, "dense": 13, "tables": 26, "rows": 200000, "dim": 128},
            {"batch": 65536, "dense": 13, "tables": 8, "rows": 500000, "dim": 64},
            {"batch": 4096, "dense": 64, "tables": 64, "rows": 200000, "dim": 64},
        ],
    },
    "ranges": {"batch": [1, 131072], "dense": [1, 512], "tables": [1, 128], "rows": [16, 4000000],
               "dim": [4, 256]},
    "multiple_of": {},
    "backward": False,
}

batch = 512
dense = 13
tables = 8
rows = 100000
dim = 64


class Model(nn.Module):
    def __init__(self, dense: int, tables: int, rows: int, dim: int):
        super().__init__()
        self.bottom = nn.Sequential(nn.Linear(dense, 256), nn.ReLU(), nn.Linear(256, dim), nn.ReLU())
        self.embeddings = nn.Parameter(torch.randn(tables, rows, dim) * 0.5)
        pairs = (tables + 1) * tables // 2
        self.top = nn.Sequential(nn.Linear(dim + pairs, 256), nn.ReLU(), nn.Linear(256, 1))
        rows_idx, cols_idx = torch.triu_indices(tables + 1, tables + 1, offset=1)
        self.register_buffer("rows_idx", rows_idx)
        self.register_buffer("cols_idx", cols_idx)

    def forward(self, dense_x: torch.Tensor, sparse_ids: torch.Tensor) -> torch.Tensor:
        # dense_x: (batch, dense); sparse_ids: (batch, tables), one id per table
        d = self.bottom(dense_x)  # (batch, dim)
        table = torch.arange(sparse_ids.shape[1], device=sparse_ids.device)
        e = self.embeddings[table, sparse_ids]  # (batch, tables, dim)
        features = torch.cat([d.unsqueeze(1), e], dim=1)  # (batch, tables + 1, dim)
        dots = features @ features.transpose(1, 2)  # (batch, tables + 1, tables + 1)
        interactions = dots[:, self.rows_idx, self.cols_idx]  # (batch, pairs)
        return self.top(torch.cat([d, interactions], dim=1))  # (batch, 1)


def get_inputs():
    dense_x = torch.randn(batch, dense)
    sparse_ids = torch.randint(0, rows, (batch, tables))
    return [dense_x, sparse_ids]


def get_init_inputs():
    return [dense, tables, rows, dim]
