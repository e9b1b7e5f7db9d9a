"""Masked fill of attention scores with a broadcast (batch, 1, q, k) mask (memory-bound)."""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["indexing", "masked_fill", "broadcast", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 8, "heads": 8, "seq": 383},
                {"batch": 1, "heads": 4, "seq": 1021},
                {"batch": 64, "heads": 12, "seq": 95}],
        "gpu": [{"batch": 16, "heads": 16, "seq": 1023},
                {"batch": 2, "heads": 32, "seq": 4095},
                {"batch": 256, "heads": 12, "seq": 127}],
    },
    "ranges": {"batch": [1, 1024], "heads": [1, 128], "seq": [1, 16384]},
    "multiple_of": {},
    "backward": False,
}

batch = 8
heads = 8
seq = 383
fill_value = -10000.0


class Model(nn.Module):
    def __init__(self, fill_value: float):
        super().__init__()
        self.fill_value = fill_value

    def forward(self, scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        # (batch, heads, seq, seq), (batch, 1, seq, seq) bool -> (batch, heads, seq, seq)
        return scores.masked_fill(mask, self.fill_value)


def get_inputs():
    scores = torch.randn(batch, heads, seq, seq) * 3.0
    # Causal mask plus random extra masked keys per sample.
    causal = torch.ones(seq, seq, dtype=torch.bool).triu(1)
    dropped = torch.rand(batch, 1, 1, seq) < 0.2
    return [scores, causal | dropped]


def get_init_inputs():
    return [fill_value]
