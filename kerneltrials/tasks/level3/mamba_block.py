"""Mamba block: RMSNorm, input projection to (x, z), causal depthwise conv + SiLU, data-dependent dt/B/C, selective scan loop, SiLU(z) gate, output projection, residual."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 3,
    "tags": ["ssm", "mamba", "selective-scan", "conv1d", "gating", "rmsnorm", "llm",
             "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 2, "seq": 48, "dim": 256, "state": 16},
            {"batch": 1, "seq": 96, "dim": 192, "state": 16},
            {"batch": 8, "seq": 24, "dim": 128, "state": 8},
        ],
        "gpu": [
            {"batch": 16, "seq": 256, "dim": 2048, "state": 16},
            {"batch": 8, "seq": 384, "dim": 1024, "state": 16},
            {"batch": 64, "seq": 128, "dim": 768, "state": 16},
        ],
    },
    "ranges": {"batch": [1, 256], "seq": [1, 2048], "dim": [16, 4096], "state": [1, 64]},
    "multiple_of": {},
    "backward": False,
}

batch = 2
seq = 48
dim = 256
state = 16
expand = 2
conv_kernel = 4
eps = 1e-5


class Model(nn.Module):
    def __init__(self, dim: int, state: int, expand: int, conv_kernel: int):
        super().__init__()
        inner = expand * dim
        self.dt_rank = max(1, dim // 16)
        self.norm = nn.Parameter(1.0 + 0.2 * torch.randn(dim))
        self.in_proj = nn.Linear(dim, 2 * inner, bias=False)
        self.conv = nn.Conv1d(inner, inner, conv_kernel, groups=inner, padding=conv_kernel - 1)
        self.x_proj = nn.Linear(inner, self.dt_rank + 2 * state, bias=False)
        self.dt_proj = nn.Linear(self.dt_rank, inner)
        self.a_log = nn.Parameter(torch.log(torch.arange(1, state + 1).float()).repeat(inner, 1))
        self.d = nn.Parameter(torch.ones(inner) + 0.3 * torch.randn(inner))
        self.out_proj = nn.Linear(inner, dim, bias=False)

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        n = hidden.shape[1]
        h = hidden * torch.rsqrt(hidden.pow(2).mean(-1, keepdim=True) + eps) * self.norm
        x, z = self.in_proj(h).chunk(2, dim=-1)  # (b, n, inner) each
        x = F.silu(self.conv(x.transpose(1, 2))[..., :n].transpose(1, 2))  # causal conv
        dt, b, c = self.x_proj(x).split([self.dt_rank, self.a_log.shape[1], self.a_log.shape[1]], -1)
        delta = F.softplus(self.dt_proj(dt))  # (b, n, inner)
        a = -torch.exp(self.a_log)  # (inner, state)
        s = torch.zeros(x.shape[0], x.shape[2], a.shape[1], dtype=x.dtype, device=x.device)
        ys = []
        for t in range(n):
            dt_t = delta[:, t].unsqueeze(-1)  # (b, inner, 1)
            s = torch.exp(dt_t * a) * s + dt_t * b[:, t].unsqueeze(1) * x[:, t].unsqueeze(-1)
            ys.append((s * c[:, t].unsqueeze(1)).sum(-1))
        y = (torch.stack(ys, dim=1) + self.d * x) * F.silu(z)
        return hidden + self.out_proj(y)  # (b, n, dim)


def get_inputs():
    return [torch.randn(batch, seq, dim) * 1.5]


def get_init_inputs():
    return [dim, state, expand, conv_kernel]
