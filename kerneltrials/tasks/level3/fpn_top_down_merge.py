"""Feature-pyramid top-down pathway over three levels: 1x1 lateral convs, nearest 2x upsampling and addition, 3x3 output convs; returns all three maps."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 3,
    "tags": ["cnn", "fpn", "conv2d", "upsampling", "multi-scale", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 2, "base_channels": 32, "out_channels": 64, "height": 16, "width": 18},
            {"batch": 1, "base_channels": 64, "out_channels": 64, "height": 12, "width": 10},
            {"batch": 8, "base_channels": 16, "out_channels": 32, "height": 8, "width": 9},
        ],
        "gpu": [
            {"batch": 32, "base_channels": 256, "out_channels": 256, "height": 25, "width": 34},
            {"batch": 8, "base_channels": 256, "out_channels": 256, "height": 50, "width": 68},
            {"batch": 128, "base_channels": 128, "out_channels": 128, "height": 16, "width": 16},
        ],
    },
    "ranges": {"batch": [1, 512], "base_channels": [1, 512], "out_channels": [1, 512],
               "height": [1, 256], "width": [1, 256]},
    "multiple_of": {},
    "backward": False,
}

batch = 2
base_channels = 32
out_channels = 64
height = 16  # of the coarsest level; the finer levels are 2x and 4x
width = 18


class Model(nn.Module):
    def __init__(self, base_channels: int, out_channels: int):
        super().__init__()
        in_channels = [base_channels, 2 * base_channels, 4 * base_channels]  # fine -> coarse
        self.lateral = nn.ModuleList(nn.Conv2d(c, out_channels, 1) for c in in_channels)
        self.output = nn.ModuleList(nn.Conv2d(out_channels, out_channels, 3, padding=1)
                                    for _ in in_channels)

    def forward(self, c3: torch.Tensor, c4: torch.Tensor, c5: torch.Tensor):
        p5 = self.lateral[2](c5)  # (batch, out, h, w)
        p4 = self.lateral[1](c4) + F.interpolate(p5, scale_factor=2.0, mode="nearest")
        p3 = self.lateral[0](c3) + F.interpolate(p4, scale_factor=2.0, mode="nearest")
        return self.output[0](p3), self.output[1](p4), self.output[2](p5)


def get_inputs():
    c3 = torch.randn(batch, base_channels, 4 * height, 4 * width)
    c4 = torch.randn(batch, 2 * base_channels, 2 * height, 2 * width)
    c5 = torch.randn(batch, 4 * base_channels, height, width)
    return [c3, c4, c5]


def get_init_inputs():
    return [base_channels, out_channels]
