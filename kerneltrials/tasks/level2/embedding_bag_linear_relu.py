"""Recommender feature tower: EmbeddingBag (mean over variable-length bags given by offsets), linear layer, ReLU."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["embedding", "gather", "reduction", "linear", "gemm", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"bags": 1024, "avg_bag": 20, "vocab": 100000, "dim": 128, "out_features": 256},
            {"bags": 255, "avg_bag": 60, "vocab": 30000, "dim": 256, "out_features": 511},
            {"bags": 4096, "avg_bag": 5, "vocab": 500000, "dim": 64, "out_features": 128},
        ],
        "gpu": [
            {"bags": 65536, "avg_bag": 20, "vocab": 10000000, "dim": 128, "out_features": 512},
            {"bags": 16384, "avg_bag": 100, "vocab": 1000000, "dim": 256, "out_features": 1024},
            {"bags": 262144, "avg_bag": 8, "vocab": 2000000, "dim": 64, "out_features": 256},
        ],
    },
    "ranges": {"bags": [1, 1048576], "avg_bag": [1, 512], "vocab": [16, 20000000],
               "dim": [8, 1024], "out_features": [1, 4096]},
    "multiple_of": {},
    "backward": False,
}

bags = 1024
avg_bag = 20
vocab = 100000
dim = 128
out_features = 256


class Model(nn.Module):
    def __init__(self, vocab: int, dim: int, out_features: int):
        super().__init__()
        self.embed = nn.EmbeddingBag(vocab, dim, mode="mean")
        self.fc = nn.Linear(dim, out_features)

    def forward(self, ids: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        pooled = self.embed(ids, offsets)  # (bags, dim)
        return F.relu(self.fc(pooled))  # (bags, out_features)


def get_inputs():
    total = bags * avg_bag  # fixed, so any offsets fit any ids
    starts = torch.randperm(total - 1)[: bags - 1].sort().values + 1
    offsets = torch.cat([torch.zeros(1, dtype=torch.long), starts])  # variable-length bags
    ids = torch.randint(0, vocab, (total,))
    return [ids, offsets]


def get_init_inputs():
    return [vocab, dim, out_features]
