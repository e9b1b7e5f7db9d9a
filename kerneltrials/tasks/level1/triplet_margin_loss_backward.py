"""Triplet margin loss (L2 distance, margin 1), mean, forward and backward (memory-bound).

Per row: max(||a - p|| - ||a - n|| + margin, 0); the hinge is active on about half of the rows.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 1,
    "tags": ["loss", "distance", "reduction", "backward", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 3067, "dim": 511}, {"batch": 95, "dim": 16381}, {"batch": 24571, "dim": 63}],
        "gpu": [{"batch": 65535, "dim": 1024}, {"batch": 4096, "dim": 32767}, {"batch": 524287, "dim": 127}],
    },
    "ranges": {"batch": [1, 1048576], "dim": [1, 131072]},
    "multiple_of": {},
    "backward": True,
}

batch = 3067
dim = 511
margin = 1.0


class Model(nn.Module):
    def __init__(self, margin: float):
        super().__init__()
        self.margin = margin

    def forward(self, anchor: torch.Tensor, positive: torch.Tensor,
                negative: torch.Tensor) -> torch.Tensor:
        # (batch, dim) x3 -> ()
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=2.0)


def get_inputs():
    anchor = torch.randn(batch, dim)
    # Per-row distances of similar size (scaled by 1/sqrt(dim)), so rows land on both hinge sides.
    spread = 2.0 / dim**0.5
    positive = anchor + torch.randn(batch, dim) * (torch.rand(batch, 1) * spread)
    negative = anchor + torch.randn(batch, dim) * (torch.rand(batch, 1) * spread)
    return [anchor, positive, negative]


def get_init_inputs():
    return [margin]
