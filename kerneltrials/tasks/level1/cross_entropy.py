"""Cross-entropy of logits against integer class targets, mean over the batch (memory-bound)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 1,
    "tags": ["loss", "softmax", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 4093, "classes": 1001},
                {"batch": 128, "classes": 32003},
                {"batch": 32749, "classes": 127}],
        "gpu": [{"batch": 65535, "classes": 4096}, {"batch": 4096, "classes": 128257}, {"batch": 524287, "classes": 255}],
    },
    "ranges": {"batch": [1, 1048576], "classes": [2, 262144]},
    "multiple_of": {},
    "backward": False,
}

batch = 4093
classes = 1001


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(logits, targets)  # (batch, classes), (batch,) int64 -> ()


def get_inputs():
    targets = torch.randint(0, classes, (batch,))
    logits = torch.randn(batch, classes) * 3.0
    # Boost the target logit on about half of the rows, so the loss is not near log(classes).
    boost = (torch.rand(batch) < 0.5).float() * (torch.rand(batch) * 12.0)
    logits[torch.arange(batch), targets] += boost
    return [logits, targets]


def get_init_inputs():
    return []
