"""PReLU with one learned slope per channel, forward and backward (memory-bound).

The backward pass needs the input gradient and the per-channel slope gradient, a
reduction over batch and spatial positions.
"""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["activation", "elementwise", "backward", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [{"batch": 8, "channels": 64, "height": 63, "width": 65},
                {"batch": 1, "channels": 33, "height": 223, "width": 225},
                {"batch": 128, "channels": 257, "height": 5, "width": 7}],
        "gpu": [{"batch": 64, "channels": 128, "height": 111, "width": 113},
                {"batch": 16, "channels": 32, "height": 447, "width": 449},
                {"batch": 512, "channels": 1023, "height": 7, "width": 7}],
    },
    "ranges": {"batch": [1, 1024], "channels": [1, 4096], "height": [1, 1024], "width": [1, 1024]},
    "multiple_of": {},
    "backward": True,
}

batch = 8
channels = 64
height = 63
width = 65


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.act = nn.PReLU(num_parameters=channels)
        with torch.no_grad():  # distinct slopes per channel, some negative, not the 0.25 default
            self.act.weight.copy_(torch.randn(channels) * 0.4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(x)  # (batch, channels, height, width)


def get_inputs():
    return [torch.randn(batch, channels, height, width) * 2.0 + torch.randn(1, channels, 1, 1) * 0.5]


def get_init_inputs():
    return [channels]
