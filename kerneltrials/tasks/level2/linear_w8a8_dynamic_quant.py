"""W8A8 linear with dynamic per-token activation quantisation: absmax int8 rounding of x, int8 weights with per-channel scales, rescaled output."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["linear", "gemm", "quantization", "int8", "llm", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"tokens": 255, "in_features": 1024, "out_features": 1023},
            {"tokens": 64, "in_features": 2048, "out_features": 1536},
            {"tokens": 1000, "in_features": 511, "out_features": 512},
        ],
        "gpu": [
            {"tokens": 8192, "in_features": 4096, "out_features": 4096},
            {"tokens": 2047, "in_features": 8192, "out_features": 14336},
            {"tokens": 32768, "in_features": 2048, "out_features": 2048},
        ],
    },
    "ranges": {"tokens": [1, 32768], "in_features": [16, 16384], "out_features": [16, 32768]},
    "multiple_of": {},
    "backward": False,
    # Rounding to the int8 grid flips a few codes under float32 reassociation of the
    # absmax scaling, so outputs may differ by up to one quantisation step of one term.
    "atol": 1e-3,
    "rtol": 1e-3,
}

tokens = 255
in_features = 1024
out_features = 1023


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.register_buffer("weight_int8", torch.randint(-127, 128, (out_features, in_features),
                                                          dtype=torch.int8))
        self.register_buffer("weight_scale", (0.5 + torch.rand(out_features)) / (127 * in_features ** 0.5))
        self.bias = nn.Parameter(0.1 * torch.randn(out_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x_scale = x.abs().amax(dim=-1, keepdim=True).clamp_min(1e-8) / 127.0  # (tokens, 1)
        x_q = torch.round(x / x_scale)  # int8 codes in [-127, 127], held in float
        acc = x_q @ self.weight_int8.to(x.dtype).t()  # (tokens, out): integer-valued sums
        return acc * x_scale * self.weight_scale + self.bias


def get_inputs():
    return [torch.randn(tokens, in_features) * (0.5 + 2.0 * torch.rand(tokens, 1))]


def get_init_inputs():
    return [in_features, out_features]
