"""One GRU step with the hidden state as an explicit input (gates written out, as in torch.nn.GRUCell)."""

import torch
import torch.nn as nn

TASK = {
    "level": 3,
    "tags": ["rnn", "gru", "gemm", "gating", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 255, "input_size": 512, "hidden_size": 1024},
            {"batch": 64, "input_size": 1023, "hidden_size": 2048},
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
hidden_size = 1024


class Model(nn.Module):
    def __init__(self, input_size: int, hidden_size: int):
        super().__init__()
        self.input_gates = nn.Linear(input_size, 3 * hidden_size)  # reset, update, new
        self.hidden_gates = nn.Linear(hidden_size, 3 * hidden_size)

    def forward(self, x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        xr, xz, xn = self.input_gates(x).chunk(3, dim=1)  # each (batch, hidden_size)
        hr, hz, hn = self.hidden_gates(h).chunk(3, dim=1)
        reset = torch.sigmoid(xr + hr)
        update = torch.sigmoid(xz + hz)
        candidate = torch.tanh(xn + reset * hn)
        return (1.0 - update) * candidate + update * h  # (batch, hidden_size)


def get_inputs():
    x = torch.randn(batch, input_size) * 1.5
    h = torch.tanh(torch.randn(batch, hidden_size) * 2.0)  # a plausible previous state
    return [x, h]


def get_init_inputs():
    return [input_size, hidden_size]
