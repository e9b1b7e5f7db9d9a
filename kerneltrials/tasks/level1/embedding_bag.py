"""EmbeddingBag, weighted sum over variable-length bags given by offsets (memory-bound gather).

The sparse-feature lookup of recommendation models: ids (flat), offsets (bag starts) and a
per-id weight; out[b] = sum_{i in bag b} w[i] * table[ids[i]].
"""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["gather", "embedding", "reduction", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"bags": 4093, "mean_bag": 31, "vocab": 100003, "dim": 128},
                {"bags": 16381, "mean_bag": 7, "vocab": 1000003, "dim": 64},
                {"bags": 509, "mean_bag": 127, "vocab": 50021, "dim": 256}],
        "gpu": [{"bags": 65535, "mean_bag": 63, "vocab": 1000003, "dim": 128},
                {"bags": 262143, "mean_bag": 15, "vocab": 4000037, "dim": 64},
                {"bags": 8191, "mean_bag": 255, "vocab": 500009, "dim": 512}],
    },
    "ranges": {"bags": [1, 1048576], "mean_bag": [1, 1024], "vocab": [2, 8388608], "dim": [1, 4096]},
    "multiple_of": {},
    "backward": False,
}

bags = 4093
mean_bag = 31
vocab = 100003
dim = 128


class Model(nn.Module):
    def __init__(self, vocab: int, dim: int):
        super().__init__()
        self.table = nn.EmbeddingBag(vocab, dim, mode="sum")

    def forward(self, ids: torch.Tensor, offsets: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
        # (total,) int64, (bags,) int64, (total,) -> (bags, dim)
        return self.table(ids, offsets, per_sample_weights=weights)


def get_inputs():
    # A fixed total (so every input keeps its shape), cut at random distinct points:
    # bag lengths vary, every bag holds at least one id.
    total = bags * mean_bag
    cuts = torch.randperm(total - 1)[: bags - 1] + 1
    offsets = torch.cat([torch.zeros(1, dtype=torch.long), torch.sort(cuts).values])
    ranks = torch.randint(1, vocab + 1, (total,)).double()
    ids = (vocab * (ranks / vocab) ** 2).long().clamp_(0, vocab - 1)
    weights = torch.randn(total)
    return [ids, offsets, weights]


def get_init_inputs():
    return [vocab, dim]
