"""Bilinear layer y_k = x1^T W_k x2 + b_k over two inputs, tanh, learned output scale."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["bilinear", "gemm", "activation", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 255, "in1": 128, "in2": 96, "out_features": 64},
            {"batch": 64, "in1": 256, "in2": 255, "out_features": 32},
            {"batch": 1000, "in1": 64, "in2": 48, "out_features": 100},
        ],
        "gpu": [
            {"batch": 8192, "in1": 512, "in2": 512, "out_features": 256},
            {"batch": 32768, "in1": 256, "in2": 128, "out_features": 128},
            {"batch": 4096, "in1": 1024, "in2": 767, "out_features": 64},
        ],
    },
    "ranges": {"batch": [1, 32768], "in1": [1, 2048], "in2": [1, 2048], "out_features": [1, 1024]},
    "multiple_of": {},
    "backward": False,
}

batch = 255
in1 = 128
in2 = 96
out_features = 64


class Model(nn.Module):
    def __init__(self, in1: int, in2: int, out_features: int):
        super().__init__()
        self.bilinear = nn.Bilinear(in1, in2, out_features)
        self.scale = nn.Parameter(0.5 + torch.rand(out_features))

    def forward(self, x1: torch.Tensor, x2: torch.Tensor) -> torch.Tensor:
        y = torch.tanh(self.bilinear(x1, x2))  # (batch, out_features)
        return y * self.scale


def get_inputs():
    return [torch.randn(batch, in1) * 2.0, torch.randn(batch, in2) * 2.0]


def get_init_inputs():
    return [in1, in2, out_features]
