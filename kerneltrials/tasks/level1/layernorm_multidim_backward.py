"""LayerNorm over the last three dims (C, H, W) with an elementwise affine, forward and backward.

Each sample is normalised as a whole; the affine has one weight and bias per (c, h, w)
position, so the weight gradients are reductions over the batch (memory-bound norm).
"""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["normalization", "layernorm", "backward", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 24, "channels": 32, "height": 63, "width": 65},
                {"batch": 6, "channels": 8, "height": 223, "width": 225},
                {"batch": 192, "channels": 127, "height": 9, "width": 11}],
        "gpu": [{"batch": 64, "channels": 64, "height": 111, "width": 113},
                {"batch": 16, "channels": 32, "height": 223, "width": 225},
                {"batch": 512, "channels": 511, "height": 7, "width": 9}],
    },
    "ranges": {"batch": [1, 1024], "channels": [1, 2048], "height": [1, 1024], "width": [1, 1024]},
    "multiple_of": {},
    "backward": True,
}

batch = 24
channels = 32
height = 63
width = 65
eps = 1e-5


class Model(nn.Module):
    def __init__(self, channels: int, height: int, width: int, eps: float):
        super().__init__()
        self.norm = nn.LayerNorm((channels, height, width), eps=eps)
        with torch.no_grad():  # non-trivial affine, so skipping it is caught
            self.norm.weight.copy_(1.0 + 0.5 * torch.randn(channels, height, width))
            self.norm.bias.copy_(0.5 * torch.randn(channels, height, width))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)  # (batch, channels, height, width), stats over (c, h, w)


def get_inputs():
    mean = torch.randn(batch, 1, 1, 1) * 3.0
    scale = torch.rand(batch, 1, 1, 1) * 4.0 + 0.25
    return [torch.randn(batch, channels, height, width) * scale + mean]


def get_init_inputs():
    return [channels, height, width, eps]
