"""One LSTM step with (h, c) as explicit inputs; returns [h', c'] concatenated on the feature axis."""

import torch
import torch.nn as nn

TASK = {
    "level": 3,
    "tags": ["rnn", "lstm", "gemm", "gating", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 255, "input_size": 512, "hidden_size": 768},
            {"batch": 64, "input_size": 1023, "hidden_size": 1536},
            {"batch": 1000, "input_size": 128, "hidden_size": 333},
        ],
        "gpu": [
            {"batch": 8191, "input_size": 2048, "hidden_size": 4096},
            {"batch": 1024, "input_size": 4095, "hidden_size": 8192},
            {"batch": 65536, "input_size": 256, "hidden_size": 1023},
        ],
    },
    "ranges": {"batch": [1, 65536], "input_size": [1, 16384], "hidden_size": [1, 16384]},
    "multiple_of": {},
    "backward": False,
}

batch = 255
input_size = 512
hidden_size = 768


class Model(nn.Module):
    def __init__(self, input_size: int, hidden_size: int):
        super().__init__()
        self.input_gates = nn.Linear(input_size, 4 * hidden_size)  # input, forget, cell, output
        self.hidden_gates = nn.Linear(hidden_size, 4 * hidden_size)

    def forward(self, x: torch.Tensor, h: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        gates = self.input_gates(x) + self.hidden_gates(h)  # (batch, 4 * hidden_size)
        i, f, g, o = gates.chunk(4, dim=1)
        c_next = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h_next = torch.sigmoid(o) * torch.tanh(c_next)
        return torch.cat([h_next, c_next], dim=1)  # (batch, 2 * hidden_size)


def get_inputs():
    x = torch.randn(batch, input_size) * 1.5
    h = torch.tanh(torch.randn(batch, hidden_size) * 2.0)
    c = torch.randn(batch, hidden_size) * 2.0
    return [x, h, c]


def get_init_inputs():
    return [input_size, hidden_size]
