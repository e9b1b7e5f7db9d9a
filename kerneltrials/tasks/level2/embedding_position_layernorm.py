"""BERT-style input embeddings: word + learned position + segment embeddings, summed, then LayerNorm."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["embedding", "gather", "layernorm", "llm", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 16, "seq": 255, "vocab": 30522, "dim": 512},
            {"batch": 4, "seq": 511, "vocab": 8191, "dim": 1023},
            {"batch": 64, "seq": 97, "vocab": 50000, "dim": 256},
        ],
        "gpu": [
            {"batch": 128, "seq": 511, "vocab": 30522, "dim": 1024},
            {"batch": 32, "seq": 2047, "vocab": 50265, "dim": 768},
            {"batch": 512, "seq": 127, "vocab": 119547, "dim": 2047},
        ],
    },
    "ranges": {"batch": [1, 1024], "seq": [1, 4096], "vocab": [16, 262144], "dim": [16, 8192]},
    "multiple_of": {},
    "backward": False,
}

batch = 16
seq = 255
vocab = 30522
dim = 512
segments = 2
eps = 1e-12


class Model(nn.Module):
    def __init__(self, vocab: int, max_positions: int, dim: int):
        super().__init__()
        self.word = nn.Embedding(vocab, dim)
        self.position = nn.Embedding(max_positions, dim)
        self.segment = nn.Embedding(segments, dim)
        self.norm = nn.LayerNorm(dim, eps=eps)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.normal_(0.0, 0.2)

    def forward(self, ids: torch.Tensor, segment_ids: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(ids.shape[1], device=ids.device)
        x = self.word(ids) + self.position(positions) + self.segment(segment_ids)  # (b, n, dim)
        return self.norm(x)


def get_inputs():
    ids = torch.randint(0, vocab, (batch, seq))
    segment_ids = (torch.rand(batch, seq) > 0.5).long()
    return [ids, segment_ids]


def get_init_inputs():
    return [vocab, seq, dim]
