"""Binary cross-entropy on logits with a per-class positive weight, mean, forward and backward.

Multi-label classification: every (sample, class) pair is an independent 0/1 target.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 1,
    "tags": ["loss", "reduction", "backward", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 1021, "classes": 1001}, {"batch": 32, "classes": 32003}, {"batch": 8191, "classes": 127}],
        "gpu": [{"batch": 32767, "classes": 4096}, {"batch": 2048, "classes": 128257}, {"batch": 262143, "classes": 511}],
    },
    "ranges": {"batch": [1, 1048576], "classes": [1, 262144]},
    "multiple_of": {},
    "backward": True,
}

batch = 1021
classes = 1001


class Model(nn.Module):
    pos_weight: torch.Tensor

    def __init__(self, classes: int):
        super().__init__()
        # Rare classes get a larger positive weight (a constant, not trained).
        self.register_buffer("pos_weight", torch.rand(classes) * 4.0 + 0.5)

    def forward(self, logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        # (batch, classes), (batch, classes) int64 in {0, 1} -> ()
        return F.binary_cross_entropy_with_logits(logits, targets.to(logits.dtype),
                                                  pos_weight=self.pos_weight)


def get_inputs():
    # Large-magnitude logits too: a naive log(sigmoid(x)) overflows there.
    logits = torch.randn(batch, classes) * (torch.rand(batch, 1) * 8.0 + 0.5)
    # Label density varies per sample, so a redraw of the targets moves the loss.
    targets = (torch.rand(batch, classes) < torch.rand(batch, 1) * 0.6).long()
    return [logits, targets]


def get_init_inputs():
    return [classes]
