"""Causal linear attention (elu+1 feature map) computed chunk by chunk: exact attention inside each chunk plus a running key-value state across chunks."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 3,
    "tags": ["attention", "linear-attention", "chunked", "causal", "recurrence", "llm",
             "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 2, "heads": 8, "seq": 512, "head_dim": 64},
            {"batch": 1, "heads": 4, "seq": 1024, "head_dim": 128},
            {"batch": 8, "heads": 6, "seq": 192, "head_dim": 32},
        ],
        "gpu": [
            {"batch": 16, "heads": 16, "seq": 4096, "head_dim": 64},
            {"batch": 4, "heads": 32, "seq": 16384, "head_dim": 128},
            {"batch": 64, "heads": 8, "seq": 2048, "head_dim": 64},
        ],
    },
    "ranges": {"batch": [1, 256], "heads": [1, 64], "seq": [64, 65536], "head_dim": [8, 256]},
    "multiple_of": {"seq": 64, "head_dim": 8},
    "backward": False,
}

batch = 2
heads = 8
seq = 512
head_dim = 64
chunk = 64
eps = 1e-6


class Model(nn.Module):
    def __init__(self, chunk: int):
        super().__init__()
        self.chunk = chunk

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        b, h, n, d = q.shape
        q, k = F.elu(q) + 1.0, F.elu(k) + 1.0  # positive feature map
        kv_state = q.new_zeros(b, h, d, v.shape[-1])  # running sum of k^T v
        k_state = q.new_zeros(b, h, 1, d)  # running sum of k
        causal = torch.ones(self.chunk, self.chunk, dtype=torch.bool, device=q.device).tril()
        outputs = []
        for start in range(0, n, self.chunk):
            qc, kc, vc = (t[:, :, start:start + self.chunk] for t in (q, k, v))
            scores = (qc @ kc.transpose(-2, -1)).masked_fill(~causal, 0.0)  # (b, h, c, c)
            numerator = scores @ vc + qc @ kv_state
            denominator = scores.sum(-1, keepdim=True) + qc @ k_state.transpose(-2, -1)
            outputs.append(numerator / (denominator + eps))
            kv_state = kv_state + kc.transpose(-2, -1) @ vc
            k_state = k_state + kc.sum(dim=2, keepdim=True)
        return torch.cat(outputs, dim=2)  # (b, h, n, d)


def get_inputs():
    q = torch.randn(batch, heads, seq, head_dim)
    k = torch.randn(batch, heads, seq, head_dim)
    v = torch.randn(batch, heads, seq, head_dim) * 2.0
    return [q, k, v]


def get_init_inputs():
    return [chunk]
