"""Mean squared error between predictions and targets (memory-bound loss, scalar output)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 1,
    "tags": ["loss", "reduction", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 2039, "features": 4093},
                {"batch": 128, "features": 65521},
                {"batch": 16381, "features": 511}],
        "gpu": [{"batch": 16383, "features": 16384}, {"batch": 1024, "features": 262143}, {"batch": 262143, "features": 767}],
    },
    "ranges": {"batch": [1, 524288], "features": [1, 524288]},
    "multiple_of": {},
    "backward": False,
}

batch = 2039
features = 4093


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return F.mse_loss(predictions, targets)  # (batch, features) x2 -> ()


def get_inputs():
    targets = torch.randn(batch, features) * 2.0
    predictions = targets + torch.randn(batch, features) * 0.7 + 0.3
    return [predictions, targets]


def get_init_inputs():
    return []
