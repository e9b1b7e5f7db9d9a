"""Sigmoid focal loss (RetinaNet form, alpha 0.25, gamma 2) written out, mean, forward and backward.

loss = mean(alpha_t * (1 - p_t) ** gamma * bce(logits, t)), p = sigmoid(logits),
p_t = p * t + (1 - p) * (1 - t), alpha_t = alpha * t + (1 - alpha) * (1 - t).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 1,
    "tags": ["loss", "elementwise", "reduction", "backward", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 509, "classes": 1001}, {"batch": 16, "classes": 32003}, {"batch": 4093, "classes": 127}],
        "gpu": [{"batch": 32767, "classes": 4096}, {"batch": 2048, "classes": 128257}, {"batch": 262143, "classes": 511}],
    },
    "ranges": {"batch": [1, 1048576], "classes": [1, 262144]},
    "multiple_of": {},
    "backward": True,
}

batch = 509
classes = 1001
alpha = 0.25
gamma = 2.0


class Model(nn.Module):
    def __init__(self, alpha: float, gamma: float):
        super().__init__()
        self.alpha = alpha
        self.gamma = gamma

    def forward(self, logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        # (batch, classes), (batch, classes) int64 in {0, 1} -> ()
        t = targets.to(logits.dtype)
        p = torch.sigmoid(logits)
        ce = F.binary_cross_entropy_with_logits(logits, t, reduction="none")
        p_t = p * t + (1 - p) * (1 - t)
        alpha_t = self.alpha * t + (1 - self.alpha) * (1 - t)
        return (alpha_t * (1 - p_t) ** self.gamma * ce).mean()


def get_inputs():
    logits = torch.randn(batch, classes) * (torch.rand(batch, 1) * 4.0 + 0.5) - 1.0
    # Sparse positives, as in detection, with a density that varies per sample.
    targets = (torch.rand(batch, classes) < torch.rand(batch, 1) * 0.2).long()
    return [logits, targets]


def get_init_inputs():
    return [alpha, gamma]
