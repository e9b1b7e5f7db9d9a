"""Speculative-decoding verification: target LM head on k+1 positions, draft distribution from draft logits, accept draft tokens while u < p_target / p_draft, and the next-token distribution (residual max(0, p - q) at the first rejection, or the bonus token's)."""

import torch
import torch.nn as nn

TASK = {
    "level": 3,
    "tags": ["speculative-decoding", "linear", "gemm", "softmax", "gather", "sampling", "llm",
             "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 8, "draft": 4, "dim": 512, "vocab": 8001},
            {"batch": 2, "draft": 7, "dim": 1024, "vocab": 5000},
            {"batch": 32, "draft": 3, "dim": 256, "vocab": 3001},
        ],
        "gpu": [
            {"batch": 64, "draft": 4, "dim": 4096, "vocab": 32000},
            {"batch": 16, "draft": 8, "dim": 4096, "vocab": 128256},
            {"batch": 256, "draft": 3, "dim": 2048, "vocab": 50257},
        ],
    },
    "ranges": {"batch": [1, 1024], "draft": [1, 16], "dim": [16, 8192], "vocab": [16, 262144]},
    "multiple_of": {},
    "backward": False,
}

batch = 8
draft = 4
dim = 512
vocab = 8001


class Model(nn.Module):
    def __init__(self, dim: int, vocab: int):
        super().__init__()
        self.lm_head = nn.Linear(dim, vocab, bias=False)
        with torch.no_grad():
            self.lm_head.weight.mul_(2.0)

    def forward(self, hidden: torch.Tensor, draft_logits: torch.Tensor, draft_tokens: torch.Tensor,
                uniform: torch.Tensor):
        # hidden: (b, k+1, dim); draft_logits: (b, k, vocab); draft_tokens: (b, k); uniform: (b, k)
        k = draft_tokens.shape[1]
        draft_probs = torch.softmax(draft_logits, dim=-1)
        target = torch.softmax(self.lm_head(hidden), dim=-1)  # (b, k+1, vocab)
        p = target[:, :k].gather(2, draft_tokens.unsqueeze(-1)).squeeze(-1)  # (b, k)
        q = draft_probs.gather(2, draft_tokens.unsqueeze(-1)).squeeze(-1)
        accepted = torch.cumprod((uniform * q < p).to(hidden.dtype), dim=1)  # accepted prefix
        residual = torch.clamp(target[:, :k] - draft_probs, min=0.0)
        residual = residual / residual.sum(dim=-1, keepdim=True).clamp_min(1e-20)
        candidates = torch.cat([residual, target[:, k:]], dim=1)  # (b, k+1, vocab)
        first_rejected = accepted.sum(dim=1).long()  # (b,)
        index = first_rejected.view(-1, 1, 1).expand(-1, 1, candidates.shape[-1])
        return accepted, candidates.gather(1, index).squeeze(1)  # (b, k), (b, vocab)


def get_inputs():
    hidden = torch.randn(batch, draft + 1, dim)
    draft_logits = torch.randn(batch, draft, vocab) * 1.2
    draft_tokens = torch.randint(0, vocab, (batch, draft))
    uniform = torch.rand(batch, draft) * 0.5  # acceptance thresholds u
    return [hidden, draft_logits, draft_tokens, uniform]


def get_init_inputs():
    return [dim, vocab]
