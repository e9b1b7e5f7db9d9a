"""PointNet classifier: shared per-point MLP (1x1 convs 3 -> 64 -> 128 -> 512 with BN and ReLU), global max pooling over points, FC head."""

import torch
import torch.nn as nn

TASK = {
    "level": 3,
    "tags": ["pointnet", "point-cloud", "conv1d", "batchnorm", "pooling", "mlp", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 2, "points": 1023, "classes": 40},
            {"batch": 1, "points": 2047, "classes": 16},
            {"batch": 8, "points": 255, "classes": 10},
        ],
        "gpu": [
            {"batch": 256, "points": 2048, "classes": 40},
            {"batch": 64, "points": 16383, "classes": 40},
            {"batch": 1024, "points": 1024, "classes": 16},
        ],
    },
    "ranges": {"batch": [1, 2048], "points": [1, 65536], "classes": [2, 1024]},
    "multiple_of": {},
    "backward": False,
}

batch = 2
points = 1023
classes = 40
widths = (64, 128, 512)


def trained_bn(channels: int) -> nn.BatchNorm1d:
    bn = nn.BatchNorm1d(channels)
    with torch.no_grad():
        bn.running_mean.normal_(0.0, 0.3)
        bn.running_var.uniform_(0.3, 2.0)
        bn.weight.uniform_(0.5, 1.5)
        bn.bias.normal_(0.0, 0.3)
    return bn


class Model(nn.Module):
    def __init__(self, classes: int):
        super().__init__()
        sizes = (3,) + widths
        self.convs = nn.ModuleList(nn.Conv1d(a, b, 1) for a, b in zip(sizes[:-1], sizes[1:], strict=True))
        self.norms = nn.ModuleList(trained_bn(b) for b in widths)
        self.fc1 = nn.Linear(widths[-1], 256)
        self.fc2 = nn.Linear(256, classes)

    def forward(self, cloud: torch.Tensor) -> torch.Tensor:
        x = cloud.transpose(1, 2)  # (batch, 3, points)
        for conv, norm in zip(self.convs, self.norms, strict=True):
            x = torch.relu(norm(conv(x)))  # (batch, width, points)
        pooled = x.amax(dim=2)  # (batch, 512): order-invariant
        return self.fc2(torch.relu(self.fc1(pooled)))  # (batch, classes)


def get_inputs():
    return [torch.randn(batch, points, 3)]


def get_init_inputs():
    return [classes]
