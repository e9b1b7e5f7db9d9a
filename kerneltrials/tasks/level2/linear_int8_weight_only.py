"""Int8 weight-only linear: int8 weights and per-output-channel scales, dequantised in forward, plus bias."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["linear", "gemm", "quantization", "int8", "llm", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"tokens": 17, "in_features": 2048, "out_features": 2047},
            {"tokens": 1, "in_features": 2048, "out_features": 1500},
            {"tokens": 64, "in_features": 1023, "out_features": 2560},
        ],
        "gpu": [
            {"tokens": 16, "in_features": 8192, "out_features": 8192},
            {"tokens": 1, "in_features": 4096, "out_features": 14335},
            {"tokens": 255, "in_features": 5120, "out_features": 5120},
        ],
    },
    "ranges": {"tokens": [1, 1024], "in_features": [16, 16384], "out_features": [16, 32768]},
    "multiple_of": {},
    "backward": False,
}

tokens = 17
in_features = 2048
out_features = 2047


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.register_buffer("weight_int8", torch.randint(-127, 128, (out_features, in_features),
                                                          dtype=torch.int8))
        # Per-output-channel scales, as absmax quantisation of N(0, 1/in) weights gives.
        self.register_buffer("scale", (0.5 + torch.rand(out_features)) * 3.0 / (127 * in_features ** 0.5))
        self.bias = nn.Parameter(0.1 * torch.randn(out_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        weight = self.weight_int8.to(x.dtype) * self.scale.unsqueeze(1)  # (out, in)
        return x @ weight.t() + self.bias  # (tokens, out_features)


def get_inputs():
    return [torch.randn(tokens, in_features) * 2.0]


def get_init_inputs():
    return [in_features, out_features]
