"""Softmax over attention scores with a key-padding mask (masked keys get probability 0).

scores.masked_fill(~keep, -inf).softmax(-1), where keep marks the first `length[b]` keys
of each sample; every sample keeps at least one key (memory-bound).
"""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["softmax", "masked", "attention", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 4, "heads": 8, "seq": 255},
                {"batch": 1, "heads": 4, "seq": 1021},
                {"batch": 32, "heads": 12, "seq": 63}],
        "gpu": [{"batch": 16, "heads": 16, "seq": 1023},
                {"batch": 2, "heads": 32, "seq": 4095},
                {"batch": 256, "heads": 12, "seq": 127}],
    },
    "ranges": {"batch": [1, 1024], "heads": [1, 128], "seq": [1, 16384]},
    "multiple_of": {},
    "backward": False,
}

batch = 4
heads = 8
seq = 255


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, scores: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
        # (batch, heads, seq, seq), (batch, 1, 1, seq) bool -> (batch, heads, seq, seq)
        return torch.softmax(scores.masked_fill(~keep, float("-inf")), dim=-1)


def get_inputs():
    scores = torch.randn(batch, heads, seq, seq) * 3.0
    lengths = torch.randint(1, seq + 1, (batch, 1, 1, 1))
    keep = torch.arange(seq).view(1, 1, 1, seq) < lengths
    return [scores, keep]


def get_init_inputs():
    return []
