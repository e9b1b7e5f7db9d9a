"""Language-model head and per-token cross-entropy: logits = h W^T, loss = logsumexp - target logit (forward and backward)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 2,
    "tags": ["linear", "gemm", "cross-entropy", "softmax", "llm", "backward", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"tokens": 255, "dim": 384, "vocab": 3001},
            {"tokens": 128, "dim": 511, "vocab": 4096},
            {"tokens": 600, "dim": 256, "vocab": 1500},
        ],
        "gpu": [
            {"tokens": 8192, "dim": 2048, "vocab": 32000},
            {"tokens": 4095, "dim": 4096, "vocab": 50257},
            {"tokens": 16384, "dim": 1024, "vocab": 32768},
        ],
    },
    "ranges": {"tokens": [1, 16384], "dim": [16, 8192], "vocab": [16, 131072]},
    "multiple_of": {},
    "backward": True,
}

tokens = 255
dim = 384
vocab = 3001


class Model(nn.Module):
    def __init__(self, dim: int, vocab: int):
        super().__init__()
        self.lm_head = nn.Linear(dim, vocab, bias=False)

    def forward(self, hidden: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        logits = self.lm_head(hidden)  # (tokens, vocab)
        return F.cross_entropy(logits, targets, reduction="none")  # (tokens,)


def get_inputs():
    hidden = torch.randn(tokens, dim) * 2.0
    targets = torch.randint(0, vocab, (tokens,))
    return [hidden, targets]


def get_init_inputs():
    return [dim, vocab]
