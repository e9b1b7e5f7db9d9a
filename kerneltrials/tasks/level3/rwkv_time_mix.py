"""RWKV-4 time mixing: token shift, receptance/key/value projections, the numerically stable WKV recurrence over time, sigmoid(r) gate, output projection."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 3,
    "tags": ["rwkv", "recurrence", "linear-attention", "sequential", "gemm", "llm",
             "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 4, "seq": 48, "dim": 256},
            {"batch": 1, "seq": 96, "dim": 512},
            {"batch": 16, "seq": 24, "dim": 128},
        ],
        "gpu": [
            {"batch": 32, "seq": 512, "dim": 2048},
            {"batch": 8, "seq": 512, "dim": 4096},
            {"batch": 128, "seq": 256, "dim": 1024},
        ],
    },
    "ranges": {"batch": [1, 512], "seq": [1, 4096], "dim": [8, 8192]},
    "multiple_of": {},
    "backward": False,
}

batch = 4
seq = 48
dim = 256


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.time_decay = nn.Parameter(torch.linspace(-5.0, 1.0, dim) + 0.2 * torch.randn(dim))
        self.time_first = nn.Parameter(0.5 * torch.randn(dim))
        self.mix_k = nn.Parameter(torch.rand(dim))
        self.mix_v = nn.Parameter(torch.rand(dim))
        self.mix_r = nn.Parameter(torch.rand(dim))
        self.key = nn.Linear(dim, dim, bias=False)
        self.value = nn.Linear(dim, dim, bias=False)
        self.receptance = nn.Linear(dim, dim, bias=False)
        self.output = nn.Linear(dim, dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shifted = F.pad(x, (0, 0, 1, -1))  # x_{t-1}, zeros at t = 0; (b, n, dim)
        k = self.key(x * self.mix_k + shifted * (1 - self.mix_k))
        v = self.value(x * self.mix_v + shifted * (1 - self.mix_v))
        r = self.receptance(x * self.mix_r + shifted * (1 - self.mix_r))
        w = -torch.exp(self.time_decay)  # per-channel decay, < 0
        num = torch.zeros_like(x[:, 0])  # running weighted sum of v, scaled by exp(-p)
        den = torch.zeros_like(x[:, 0])
        p = torch.full_like(x[:, 0], -1e30)  # running max exponent
        outputs = []
        for t in range(x.shape[1]):
            kt, vt = k[:, t], v[:, t]
            bonus = self.time_first + kt
            top = torch.maximum(p, bonus)
            e_old, e_new = torch.exp(p - top), torch.exp(bonus - top)
            outputs.append((e_old * num + e_new * vt) / (e_old * den + e_new))
            decayed = p + w
            top = torch.maximum(decayed, kt)
            e_old, e_new = torch.exp(decayed - top), torch.exp(kt - top)
            num, den, p = e_old * num + e_new * vt, e_old * den + e_new, top
        wkv = torch.stack(outputs, dim=1)  # (b, n, dim)
        return self.output(torch.sigmoid(r) * wkv)


def get_inputs():
    return [torch.randn(batch, seq, dim)]


def get_init_inputs():
    return [dim]
