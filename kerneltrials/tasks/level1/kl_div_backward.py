"""KL divergence between log-probability rows (log targets), batchmean, forward and backward."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 1,
    "tags": ["loss", "kl_div", "reduction", "backward", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 2039, "classes": 1001}, {"batch": 63, "classes": 32003}, {"batch": 16381, "classes": 127}],
        "gpu": [{"batch": 32767, "classes": 4096}, {"batch": 2048, "classes": 128257}, {"batch": 262143, "classes": 255}],
    },
    "ranges": {"batch": [1, 1048576], "classes": [2, 262144]},
    "multiple_of": {},
    "backward": True,
}

batch = 2039
classes = 1001


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, log_probs: torch.Tensor, log_targets: torch.Tensor) -> torch.Tensor:
        # sum(exp(t) * (t - x)) / batch: (batch, classes) x2 -> ()
        return F.kl_div(log_probs, log_targets, reduction="batchmean", log_target=True)


def get_inputs():
    # Per-row temperatures: peaked and flat distributions, KL per row varies widely.
    logits = torch.randn(batch, classes) * (torch.rand(batch, 1) * 4.0)
    target_logits = logits + torch.randn(batch, classes) * (torch.rand(batch, 1) * 2.0)
    return [torch.log_softmax(logits, dim=1), torch.log_softmax(target_logits, dim=1)]


def get_init_inputs():
    return []
