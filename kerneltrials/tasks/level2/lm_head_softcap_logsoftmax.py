"""Final LLM layer with logit soft-capping (Gemma 2): logits = cap * tanh(h W^T / cap), then log-softmax over the vocabulary."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["linear", "gemm", "softcap", "softmax", "llm", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"tokens": 127, "dim": 512, "vocab": 4001},
            {"tokens": 32, "dim": 1024, "vocab": 8192},
            {"tokens": 500, "dim": 256, "vocab": 1500},
        ],
        "gpu": [
            {"tokens": 8192, "dim": 2304, "vocab": 32000},
            {"tokens": 2047, "dim": 3584, "vocab": 128256},
            {"tokens": 16384, "dim": 1024, "vocab": 50257},
        ],
    },
    "ranges": {"tokens": [1, 16384], "dim": [16, 8192], "vocab": [16, 262144]},
    "multiple_of": {},
    "backward": False,
}

tokens = 127
dim = 512
vocab = 4001
softcap = 30.0


class Model(nn.Module):
    def __init__(self, dim: int, vocab: int):
        super().__init__()
        self.lm_head = nn.Linear(dim, vocab, bias=False)
        with torch.no_grad():
            self.lm_head.weight.mul_(20.0)  # logits large enough that the cap bends them

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        logits = self.lm_head(hidden)  # (tokens, vocab)
        logits = softcap * torch.tanh(logits / softcap)
        return torch.log_softmax(logits, dim=-1)


def get_inputs():
    return [torch.randn(tokens, dim)]


def get_init_inputs():
    return [dim, vocab]
