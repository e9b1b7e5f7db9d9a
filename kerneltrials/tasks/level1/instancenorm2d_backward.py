"""InstanceNorm2d with a learned affine over NCHW, forward and backward (memory-bound norm).

Statistics are per (sample, channel) plane; the backward pass needs the input gradient
and the weight/bias gradients (reductions over batch and space).
"""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["normalization", "instancenorm", "backward", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 8, "channels": 64, "height": 63, "width": 65},
                {"batch": 2, "channels": 24, "height": 223, "width": 225},
                {"batch": 64, "channels": 255, "height": 11, "width": 13}],
        "gpu": [{"batch": 32, "channels": 256, "height": 111, "width": 113},
                {"batch": 16, "channels": 64, "height": 447, "width": 449},
                {"batch": 256, "channels": 1023, "height": 15, "width": 13}],
    },
    "ranges": {"batch": [1, 512], "channels": [1, 2048], "height": [2, 1024], "width": [2, 1024]},
    "multiple_of": {},
    "backward": True,
}

batch = 8
channels = 64
height = 63
width = 65
eps = 1e-5


class Model(nn.Module):
    def __init__(self, channels: int, eps: float):
        super().__init__()
        # track_running_stats=False: eval() still normalises with per-instance statistics.
        self.norm = nn.InstanceNorm2d(channels, eps=eps, affine=True)
        with torch.no_grad():
            self.norm.weight.copy_(1.0 + 0.5 * torch.randn(channels))
            self.norm.bias.copy_(0.5 * torch.randn(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)  # (batch, channels, height, width)


def get_inputs():
    # Every (sample, channel) plane has its own mean and scale.
    mean = torch.randn(batch, channels, 1, 1) * 2.0
    scale = torch.rand(batch, channels, 1, 1) * 3.0 + 0.25
    return [torch.randn(batch, channels, height, width) * scale + mean]


def get_init_inputs():
    return [channels, eps]
