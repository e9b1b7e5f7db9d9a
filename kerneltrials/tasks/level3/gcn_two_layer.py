"""Two-layer graph convolutional network on a dense adjacency: symmetric normalisation D^-1/2 (A + I) D^-1/2, then A_hat X W with ReLU, twice, and log-softmax."""

import torch
import torch.nn as nn

TASK = {
    "level": 3,
    "tags": ["gnn", "gcn", "matmul", "gemm", "normalization", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"nodes": 1023, "features": 256, "hidden": 128, "classes": 16},
            {"nodes": 1200, "features": 128, "hidden": 64, "classes": 7},
            {"nodes": 500, "features": 511, "hidden": 256, "classes": 40},
        ],
        "gpu": [
            {"nodes": 16383, "features": 512, "hidden": 256, "classes": 40},
            {"nodes": 8192, "features": 1433, "hidden": 512, "classes": 7},
            {"nodes": 12000, "features": 128, "hidden": 128, "classes": 16},
        ],
    },
    "ranges": {"nodes": [2, 65536], "features": [1, 4096], "hidden": [1, 2048],
               "classes": [2, 1024]},
    "multiple_of": {},
    "backward": False,
}

nodes = 1023
features = 256
hidden = 128
classes = 16


class Model(nn.Module):
    def __init__(self, features: int, hidden: int, classes: int):
        super().__init__()
        self.layer1 = nn.Linear(features, hidden)
        self.layer2 = nn.Linear(hidden, classes)

    def forward(self, x: torch.Tensor, adjacency: torch.Tensor) -> torch.Tensor:
        a = adjacency + torch.eye(adjacency.shape[0], dtype=x.dtype, device=x.device)
        inv_sqrt_degree = a.sum(dim=1).rsqrt()  # (nodes,)
        a_hat = inv_sqrt_degree.unsqueeze(1) * a * inv_sqrt_degree.unsqueeze(0)
        h = torch.relu(a_hat @ self.layer1(x))  # (nodes, hidden)
        return torch.log_softmax(a_hat @ self.layer2(h), dim=1)  # (nodes, classes)


def get_inputs():
    x = torch.randn(nodes, features)
    edges = (torch.rand(nodes, nodes) < 8.0 / nodes).float()
    adjacency = ((edges + edges.t()) > 0).float()  # symmetric, ~16 neighbours per node
    return [x, adjacency]


def get_init_inputs():
    return [features, hidden, classes]
