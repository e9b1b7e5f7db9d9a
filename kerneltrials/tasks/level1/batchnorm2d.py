"""BatchNorm2d in inference mode (running statistics) over NCHW (memory-bound norm)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 1,
    "tags": ["normalization", "batchnorm", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 32, "channels": 64, "height": 63, "width": 65},
                {"batch": 8, "channels": 24, "height": 223, "width": 225},
                {"batch": 128, "channels": 257, "height": 15, "width": 13}],
        "gpu": [{"batch": 64, "channels": 256, "height": 111, "width": 113},
                {"batch": 32, "channels": 64, "height": 447, "width": 449},
                {"batch": 256, "channels": 1023, "height": 15, "width": 15}],
    },
    "ranges": {"batch": [1, 512], "channels": [1, 2048], "height": [1, 1024], "width": [1, 1024]},
    "multiple_of": {},
    "backward": False,
}

batch = 32
channels = 64
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
                            training=False, eps=self.eps)  # (batch, channels, height, width)


def get_inputs():
    return [torch.randn(batch, channels, height, width) * 2.0 + 0.5]


def get_init_inputs():
    return [channels, eps]
