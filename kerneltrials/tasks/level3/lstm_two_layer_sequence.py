"""Two-layer LSTM over a short sequence, written step by step with explicit initial (h, c) states; returns all top-layer outputs and final states."""

import torch
import torch.nn as nn

TASK = {
    "level": 3,
    "tags": ["rnn", "lstm", "gemm", "gating", "sequential", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 32, "seq": 16, "input_size": 128, "hidden": 192},
            {"batch": 4, "seq": 24, "input_size": 64, "hidden": 255},
            {"batch": 128, "seq": 8, "input_size": 200, "hidden": 128},
        ],
        "gpu": [
            {"batch": 256, "seq": 64, "input_size": 512, "hidden": 1024},
            {"batch": 64, "seq": 128, "input_size": 256, "hidden": 2048},
            {"batch": 1024, "seq": 32, "input_size": 1024, "hidden": 511},
        ],
    },
    "ranges": {"batch": [1, 4096], "seq": [1, 256], "input_size": [1, 4096], "hidden": [1, 4096]},
    "multiple_of": {},
    "backward": False,
}

batch = 32
seq = 16
input_size = 128
hidden = 192
layers = 2


class Model(nn.Module):
    def __init__(self, input_size: int, hidden: int, layers: int):
        super().__init__()
        scale = hidden ** -0.5
        sizes = [input_size] + [hidden] * (layers - 1)
        self.w_ih = nn.ParameterList(nn.Parameter(scale * torch.randn(4 * hidden, s)) for s in sizes)
        self.w_hh = nn.ParameterList(nn.Parameter(scale * torch.randn(4 * hidden, hidden))
                                     for _ in sizes)
        self.bias = nn.ParameterList(nn.Parameter(0.1 * torch.randn(4 * hidden)) for _ in sizes)

    def forward(self, x: torch.Tensor, h0: torch.Tensor, c0: torch.Tensor):
        # x: (seq, batch, input_size); h0, c0: (layers, batch, hidden)
        hs, cs = list(h0.unbind(0)), list(c0.unbind(0))
        outputs = []
        for t in range(x.shape[0]):
            inp = x[t]
            for layer in range(len(hs)):
                gates = inp @ self.w_ih[layer].t() + hs[layer] @ self.w_hh[layer].t() + self.bias[layer]
                i, f, g, o = gates.chunk(4, dim=1)
                cs[layer] = torch.sigmoid(f) * cs[layer] + torch.sigmoid(i) * torch.tanh(g)
                hs[layer] = torch.sigmoid(o) * torch.tanh(cs[layer])
                inp = hs[layer]
            outputs.append(inp)
        return torch.stack(outputs), torch.stack(hs), torch.stack(cs)


def get_inputs():
    x = torch.randn(seq, batch, input_size)
    h0 = torch.randn(layers, batch, hidden) * 0.5
    c0 = torch.randn(layers, batch, hidden)
    return [x, h0, c0]


def get_init_inputs():
    return [input_size, hidden, layers]
