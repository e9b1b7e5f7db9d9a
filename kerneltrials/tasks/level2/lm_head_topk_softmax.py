"""Sampling distribution of a decode step: LM head, temperature, keep the top-k logits (others -inf), softmax."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["linear", "gemm", "topk", "softmax", "sampling", "llm", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 32, "dim": 768, "vocab": 8001, "top_k": 50},
            {"batch": 16, "dim": 1024, "vocab": 6000, "top_k": 40},
            {"batch": 255, "dim": 256, "vocab": 3001, "top_k": 100},
        ],
        "gpu": [
            {"batch": 256, "dim": 4096, "vocab": 128256, "top_k": 50},
            {"batch": 64, "dim": 8192, "vocab": 32000, "top_k": 40},
            {"batch": 1024, "dim": 2048, "vocab": 50257, "top_k": 200},
        ],
    },
    "ranges": {"batch": [1, 4096], "dim": [16, 8192], "vocab": [256, 262144], "top_k": [1, 256]},
    "multiple_of": {},
    "backward": False,
}

batch = 32
dim = 768
vocab = 8001
top_k = 50
temperature = 0.8


class Model(nn.Module):
    def __init__(self, dim: int, vocab: int, top_k: int):
        super().__init__()
        self.lm_head = nn.Linear(dim, vocab, bias=False)
        self.top_k = top_k
        with torch.no_grad():
            self.lm_head.weight.mul_(4.0)

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        logits = self.lm_head(hidden) / temperature  # (batch, vocab)
        threshold = logits.topk(self.top_k, dim=-1).values[:, -1:]  # k-th largest per row
        logits = logits.masked_fill(logits < threshold, float("-inf"))
        return torch.softmax(logits, dim=-1)


def get_inputs():
    return [torch.randn(batch, dim)]


def get_init_inputs():
    return [dim, vocab, top_k]
