"""LayerNorm over the hidden dimension with a learned affine (memory-bound norm), in bfloat16.

The bfloat16 variant of L1/layernorm: inputs and parameters are cast to bfloat16 by the
harness, the output is bfloat16, and outputs are compared with the bfloat16 tolerance (1e-2).
"""

import torch
import torch.nn as nn

TASK = {
    "level": 1,
    "tags": ["normalization", "layernorm", "low-precision", "memory-bound"],
    "dtype": "bfloat16",
    "configs": {
        "cpu": [{"tokens": 12281, "hidden": 1023},
                {"tokens": 1535, "hidden": 8192},
                {"tokens": 36001, "hidden": 384}],
        "gpu": [{"tokens": 32767, "hidden": 4096}, {"tokens": 8191, "hidden": 12288}, {"tokens": 131071, "hidden": 769}],
    },
    "ranges": {"tokens": [1, 262144], "hidden": [2, 16384]},
    "multiple_of": {},
    "backward": False,
}

tokens = 12281
hidden = 1023
eps = 1e-5


class Model(nn.Module):
    def __init__(self, hidden: int, eps: float):
        super().__init__()
        self.norm = nn.LayerNorm(hidden, eps=eps)
        with torch.no_grad():  # non-trivial affine, so skipping it is caught
            self.norm.weight.copy_(1.0 + 0.5 * torch.randn(hidden))
            self.norm.bias.copy_(0.5 * torch.randn(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)  # (tokens, hidden)


def get_inputs():
    # Per-token mean and scale vary, so the statistics really have to be computed per row.
    mean = torch.randn(tokens, 1) * 3.0
    scale = torch.rand(tokens, 1) * 4.0 + 0.25
    return [torch.randn(tokens, hidden) * scale + mean]


def get_init_inputs():
    return [hidden, eps]
