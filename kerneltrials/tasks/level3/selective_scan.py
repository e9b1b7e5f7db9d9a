"""Mamba selective scan (S6), written as an explicit loop over a short sequence: h_t = exp(dt A) h_{t-1} + dt B_t x_t, y_t = C_t h_t + D x_t."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 3,
    "tags": ["ssm", "mamba", "selective-scan", "recurrence", "sequential", "llm", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 2, "seq": 64, "channels": 512, "state": 16},
            {"batch": 1, "seq": 128, "channels": 256, "state": 16},
            {"batch": 8, "seq": 32, "channels": 384, "state": 8},
        ],
        "gpu": [
            {"batch": 16, "seq": 256, "channels": 4096, "state": 16},
            {"batch": 8, "seq": 256, "channels": 2048, "state": 16},
            {"batch": 64, "seq": 128, "channels": 1536, "state": 16},
        ],
    },
    "ranges": {"batch": [1, 256], "seq": [1, 1024], "channels": [1, 8192], "state": [1, 64]},
    "multiple_of": {},
    "backward": False,
}

batch = 2
seq = 64
channels = 512
state = 16


class Model(nn.Module):
    def __init__(self, channels: int, state: int):
        super().__init__()
        # S4D-real initialisation: A = -(1..state), kept as log for positivity.
        self.a_log = nn.Parameter(torch.log(torch.arange(1, state + 1).float()).repeat(channels, 1)
                                  + 0.1 * torch.randn(channels, state))
        self.d = nn.Parameter(1.0 + 0.3 * torch.randn(channels))
        self.dt_bias = nn.Parameter(-2.0 + 0.5 * torch.randn(channels))

    def forward(self, x: torch.Tensor, dt: torch.Tensor, b: torch.Tensor, c: torch.Tensor):
        # x, dt: (batch, seq, channels); b, c: (batch, seq, state)
        a = -torch.exp(self.a_log)  # (channels, state)
        delta = F.softplus(dt + self.dt_bias)  # (batch, seq, channels)
        h = torch.zeros(x.shape[0], x.shape[2], a.shape[1], dtype=x.dtype, device=x.device)
        ys = []
        for t in range(x.shape[1]):
            dt_t = delta[:, t].unsqueeze(-1)  # (batch, channels, 1)
            h = torch.exp(dt_t * a) * h + dt_t * b[:, t].unsqueeze(1) * x[:, t].unsqueeze(-1)
            ys.append((h * c[:, t].unsqueeze(1)).sum(-1))  # (batch, channels)
        return torch.stack(ys, dim=1) + self.d * x  # (batch, seq, channels)


def get_inputs():
    x = torch.randn(batch, seq, channels)
    dt = torch.randn(batch, seq, channels)
    b = torch.randn(batch, seq, state)
    c = torch.randn(batch, seq, state)
    return [x, dt, b, c]


def get_init_inputs():
    return [channels, state]
