"""4-bit weight-only linear: two int4 codes per uint8, group-wise scales and zero-points, unpacked and dequantised in forward."""

import torch
import torch.nn as nn

TASK = {
    "level": 2,
    "tags": ["linear", "gemm", "quantization", "int4", "llm", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"tokens": 15, "in_features": 1024, "out_features": 2047},
            {"tokens": 1, "in_features": 2048, "out_features": 1500},
            {"tokens": 63, "in_features": 1024, "out_features": 1000},
        ],
        "gpu": [
            {"tokens": 16, "in_features": 8192, "out_features": 8192},
            {"tokens": 1, "in_features": 4096, "out_features": 14335},
            {"tokens": 255, "in_features": 5120, "out_features": 13824},
        ],
    },
    "ranges": {"tokens": [1, 1024], "in_features": [128, 16384], "out_features": [16, 32768]},
    "multiple_of": {"in_features": 128},
    "backward": False,
}

tokens = 15
in_features = 1024
out_features = 2047
group_size = 128


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int, group_size: int):
        super().__init__()
        groups = in_features // group_size
        # Column 2j in the low nibble, column 2j + 1 in the high nibble.
        self.register_buffer("packed", torch.randint(0, 256, (out_features, in_features // 2),
                                                     dtype=torch.uint8))
        self.register_buffer("scales", (0.5 + torch.rand(out_features, groups)) / (4 * in_features ** 0.5))
        self.register_buffer("zeros", 7.5 + torch.randn(out_features, groups))
        self.group_size = group_size

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        low = self.packed & 15
        high = self.packed >> 4
        codes = torch.stack([low, high], dim=-1).reshape(self.packed.shape[0], -1)  # (out, in)
        codes = codes.to(x.dtype).view(codes.shape[0], -1, self.group_size)  # (out, groups, g)
        weight = (codes - self.zeros.unsqueeze(-1)) * self.scales.unsqueeze(-1)
        return x @ weight.reshape(codes.shape[0], -1).t()  # (tokens, out_features)


def get_inputs():
    return [torch.randn(tokens, in_features) * 2.0]


def get_init_inputs():
    return [in_features, out_features, group_size]
