"""BatchNorm3d in inference mode (running statistics) over NCDHW (memory-bound norm)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 1,
    "tags": ["normalization", "batchnorm", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 4, "channels": 32, "depth": 15, "height": 63, "width": 65},
                {"batch": 1, "channels": 16, "depth": 31, "height": 111, "width": 113},
                {"batch": 96, "channels": 257, "depth": 5, "height": 9, "width": 7}],
        "gpu": [{"batch": 16, "channels": 64, "depth": 31, "height": 127, "width": 129},
                {"batch": 4, "channels": 32, "depth": 63, "height": 255, "width": 257},
                {"batch": 128, "channels": 1023, "depth": 7, "height": 15, "width": 13}],
    },
    "ranges": {"batch": [1, 512], "channels": [1, 2048], "depth": [1, 512], "height": [1, 1024],
               "width": [1, 1024]},
    "multiple_of": {},
    "backward": False,
}

batch = 4
channels = 32
depth = 15
height = 63
width = 65
eps = 1e-5


class Model(nn.Module):
    running_mean: torch.Tensor
    running_var: torch.Tensor

    def __init__(self, channels: int, eps: float):
        super().__init__()
        self.eps = eps
        # Statistics as a trained network would have them, not the (0, 1) defaults.
        self.weight = nn.Parameter(1.0 + 0.5 * torch.randn(channels))
        self.bias = nn.Parameter(0.5 * torch.randn(channels))
        self.register_buffer("running_mean", torch.randn(channels))
        self.register_buffer("running_var", torch.rand(channels) * 2.0 + 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # training=False: normalise with the running statistics (inference mode).
        return F.batch_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                            training=False, eps=self.eps)  # (batch, channels, d, h, w)


def get_inputs():
    return [torch.randn(batch, channels, depth, height, width) * 2.0 + 0.5]


def get_init_inputs():
    return [channels, eps]
