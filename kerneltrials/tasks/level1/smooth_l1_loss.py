"""Smooth L1 (Huber-like, beta 1.0) loss, mean reduction (memory-bound loss, scalar output)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 1,
    "tags": ["loss", "reduction", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 1021, "features": 4093},
                {"batch": 96, "features": 65521},
                {"batch": 8191, "features": 509}],
        "gpu": [{"batch": 16383, "features": 16384}, {"batch": 1024, "features": 262143}, {"batch": 262143, "features": 767}],
    },
    "ranges": {"batch": [1, 524288], "features": [1, 524288]},
    "multiple_of": {},
    "backward": False,
}

batch = 1021
features = 4093
beta = 1.0


class Model(nn.Module):
    def __init__(self, beta: float):
        super().__init__()
        self.beta = beta

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return F.smooth_l1_loss(predictions, targets, beta=self.beta)  # (batch, features) x2 -> ()


def get_inputs():
    # Errors spread over both branches: |d| < beta (quadratic) and |d| >= beta (linear).
    targets = torch.randn(batch, features) * 3.0
    predictions = targets + torch.randn(batch, features) * 1.2
    return [predictions, targets]


def get_init_inputs():
    return [beta]
