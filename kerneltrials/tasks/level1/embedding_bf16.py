"""Embedding lookup: token ids -> rows of a learned table (memory-bound gather), in bfloat16.

The bfloat16 variant of L1/embedding: inputs and parameters are cast to bfloat16 by the
harness, the output is bfloat16, and outputs are compared with the bfloat16 tolerance (1e-2).
"""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["gather", "embedding", "low-precision", "memory-bound"],
    "dtype": "bfloat16",
    "configs": {
        "cpu": [{"batch": 64, "seq": 1021, "vocab": 50021, "dim": 256},
                {"batch": 12, "seq": 2047, "vocab": 8191, "dim": 768},
                {"batch": 512, "seq": 63, "vocab": 32003, "dim": 384}],
        "gpu": [{"batch": 64, "seq": 2047, "vocab": 128257, "dim": 1024},
                {"batch": 8, "seq": 8191, "vocab": 32003, "dim": 4096},
                {"batch": 512, "seq": 255, "vocab": 50257, "dim": 767}],
    },
    "ranges": {"batch": [1, 1024], "seq": [1, 16384], "vocab": [2, 262144], "dim": [1, 8192]},
    "multiple_of": {},
    "backward": False,
}

batch = 64
seq = 1021
vocab = 50021
dim = 256


class Model(nn.Module):
    def __init__(self, vocab: int, dim: int):
        super().__init__()
        self.table = nn.Embedding(vocab, dim)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.table(tokens)  # (batch, seq) int64 -> (batch, seq, dim)


def get_inputs():
    # Zipf-like ids: a few frequent tokens, a long tail (repeated rows, scattered reads).
    ranks = torch.randint(1, vocab + 1, (batch, seq)).double()
    tokens = (vocab * (ranks / vocab) ** 3).long().clamp_(0, vocab - 1)
    return [tokens]


def get_init_inputs():
    return [vocab, dim]
