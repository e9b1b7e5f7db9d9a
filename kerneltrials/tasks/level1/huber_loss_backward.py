"""Huber loss with delta 2.0, mean reduction, forward and backward (memory-bound loss)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 1,
    "tags": ["loss", "reduction", "backward", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 2039, "features": 1023}, {"batch": 64, "features": 32771}, {"batch": 16381, "features": 127}],
        "gpu": [{"batch": 16383, "features": 16384}, {"batch": 1024, "features": 262143}, {"batch": 262143, "features": 767}],
    },
    "ranges": {"batch": [1, 524288], "features": [1, 524288]},
    "multiple_of": {},
    "backward": True,
}

batch = 2039
features = 1023
delta = 2.0


class Model(nn.Module):
    def __init__(self, delta: float):
        super().__init__()
        self.delta = delta

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return F.huber_loss(predictions, targets, delta=self.delta)  # (batch, features) x2 -> ()


def get_inputs():
    targets = torch.randn(batch, features) * 2.0
    # Per-row error scale: rows in the quadratic region, rows mostly in the linear one.
    error_scale = torch.rand(batch, 1) * 4.0
    predictions = targets + torch.randn(batch, features) * error_scale + 0.2
    return [predictions, targets]


def get_init_inputs():
    return [delta]
