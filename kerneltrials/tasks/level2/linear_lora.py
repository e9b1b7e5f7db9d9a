"""LoRA linear layer: frozen-style base projection plus a scaled low-rank update x A^T B^T (forward and backward)."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["linear", "gemm", "lora", "llm", "backward", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"tokens": 511, "in_features": 768, "out_features": 768, "rank": 16},
            {"tokens": 192, "in_features": 1024, "out_features": 2047, "rank": 8},
            {"tokens": 1023, "in_features": 500, "out_features": 333, "rank": 32},
        ],
        "gpu": [
            {"tokens": 8192, "in_features": 4096, "out_features": 4096, "rank": 16},
            {"tokens": 4095, "in_features": 4096, "out_features": 11008, "rank": 64},
            {"tokens": 16384, "in_features": 2048, "out_features": 2047, "rank": 8},
        ],
    },
    "ranges": {"tokens": [1, 16384], "in_features": [16, 8192], "out_features": [16, 16384],
               "rank": [1, 256]},
    "multiple_of": {},
    "backward": True,
}

tokens = 511
in_features = 768
out_features = 768
rank = 16
alpha = 32.0


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int, rank: int):
        super().__init__()
        self.base = nn.Linear(in_features, out_features)
        self.lora_a = nn.Parameter(torch.randn(rank, in_features) / in_features ** 0.5)
        # Trained-looking B (a fresh adapter has B = 0, which would make A irrelevant).
        self.lora_b = nn.Parameter(0.2 * torch.randn(out_features, rank) / rank ** 0.5)
        self.scaling = alpha / rank

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        update = (x @ self.lora_a.t()) @ self.lora_b.t()  # (tokens, out_features)
        return self.base(x) + self.scaling * update


def get_inputs():
    return [torch.randn(tokens, in_features) * 1.5]


def get_init_inputs():
    return [in_features, out_features, rank]
