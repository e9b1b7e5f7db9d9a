"""Two-layer GRU over a short sequence, written step by step with an explicit initial state; returns top-layer outputs and final states."""

import torch
import torch.nn as nn

TASK = {
    "level": 3,
    "tags": ["rnn", "gru", "gemm", "gating", "sequential", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 32, "seq": 16, "input_size": 128, "hidden": 200},
            {"batch": 4, "seq": 24, "input_size": 96, "hidden": 255},
            {"batch": 128, "seq": 8, "input_size": 256, "hidden": 128},
        ],
        "gpu": [
            {"batch": 256, "seq": 64, "input_size": 512, "hidden": 1024},
            {"batch": 64, "seq": 128, "input_size": 256, "hidden": 2048},
            {"batch": 1024, "seq": 32, "input_size": 1024, "hidden": 767},
        ],
    },
    "ranges": {"batch": [1, 4096], "seq": [1, 256], "input_size": [1, 4096], "hidden": [1, 4096]},
    "multiple_of": {},
    "backward": False,
}

batch = 32
seq = 16
input_size = 128
hidden = 200
layers = 2


class Model(nn.Module):
    def __init__(self, input_size: int, hidden: int, layers: int):
        super().__init__()
        self.cells = nn.ModuleList(nn.GRUCell(input_size if i == 0 else hidden, hidden)
                                   for i in range(layers))

    def forward(self, x: torch.Tensor, h0: torch.Tensor):
        # x: (seq, batch, input_size); h0: (layers, batch, hidden)
        hs = list(h0.unbind(0))
        outputs = []
        for t in range(x.shape[0]):
            inp = x[t]
            for layer, cell in enumerate(self.cells):
                hs[layer] = cell(inp, hs[layer])
                inp = hs[layer]
            outputs.append(inp)
        return torch.stack(outputs), torch.stack(hs)  # (seq, batch, hidden), (layers, batch, hidden)


def get_inputs():
    return [torch.randn(seq, batch, input_size), torch.randn(layers, batch, hidden) * 0.5]


def get_init_inputs():
    return [input_size, hidden, layers]
