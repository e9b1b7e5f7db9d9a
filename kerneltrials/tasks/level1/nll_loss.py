"""Class-weighted negative log-likelihood over a segmentation map, with ignored pixels.

loss = sum_p w[t_p] * -logp[n, t_p, h, w] / sum_p w[t_p] over the pixels p whose target is
not -100: one gather per pixel and a weighted mean (memory-bound).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 1,
    "tags": ["loss", "gather", "reduction", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 8, "classes": 21, "height": 255, "width": 257},
                {"batch": 16, "classes": 59, "height": 127, "width": 129},
                {"batch": 64, "classes": 19, "height": 63, "width": 127}],
        "gpu": [{"batch": 32, "classes": 21, "height": 511, "width": 513},
                {"batch": 16, "classes": 151, "height": 255, "width": 257},
                {"batch": 128, "classes": 19, "height": 127, "width": 255}],
    },
    "ranges": {"batch": [1, 512], "classes": [2, 1024], "height": [1, 2048], "width": [1, 2048]},
    "multiple_of": {},
    "backward": False,
}

batch = 8
classes = 21
height = 255
width = 257
ignore_index = -100


class Model(nn.Module):
    class_weight: torch.Tensor

    def __init__(self, classes: int, ignore_index: int):
        super().__init__()
        self.ignore_index = ignore_index
        self.register_buffer("class_weight", torch.rand(classes) * 2.0 + 0.1)

    def forward(self, log_probs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        # (batch, classes, h, w), (batch, h, w) int64 -> ()
        return F.nll_loss(log_probs, targets, weight=self.class_weight,
                          ignore_index=self.ignore_index)


def get_inputs():
    targets = torch.randint(0, classes, (batch, height, width))
    targets[torch.rand(batch, height, width) < 0.1] = ignore_index  # unlabelled pixels
    logits = torch.randn(batch, classes, height, width) * (torch.rand(batch, 1, 1, 1) * 3.0 + 0.5)
    return [torch.log_softmax(logits, dim=1), targets]


def get_init_inputs():
    return [classes, ignore_index]
