"""One decoder step of an attentional seq2seq model: additive (Bahdanau) attention over encoder states, GRU cell, output projection."""

import torch
import torch.nn as nn

TASK = {
    "level": 3,
    "tags": ["rnn", "gru", "attention", "additive-attention", "gemm", "memory-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 32, "src_len": 63, "hidden": 256, "embed": 128, "vocab": 4001},
            {"batch": 4, "src_len": 255, "hidden": 512, "embed": 256, "vocab": 8000},
            {"batch": 128, "src_len": 30, "hidden": 128, "embed": 64, "vocab": 1500},
        ],
        "gpu": [
            {"batch": 512, "src_len": 127, "hidden": 1024, "embed": 512, "vocab": 32000},
            {"batch": 64, "src_len": 1023, "hidden": 512, "embed": 256, "vocab": 16000},
            {"batch": 2048, "src_len": 63, "hidden": 512, "embed": 512, "vocab": 8191},
        ],
    },
    "ranges": {"batch": [1, 4096], "src_len": [1, 4096], "hidden": [8, 4096], "embed": [8, 4096],
               "vocab": [2, 65536]},
    "multiple_of": {},
    "backward": False,
}

batch = 32
src_len = 63
hidden = 256
embed = 128
vocab = 4001


class Model(nn.Module):
    def __init__(self, hidden: int, embed: int, vocab: int):
        super().__init__()
        self.query = nn.Linear(hidden, hidden, bias=False)
        self.key = nn.Linear(hidden, hidden)
        self.energy = nn.Linear(hidden, 1, bias=False)
        self.cell = nn.GRUCell(embed + hidden, hidden)
        self.out = nn.Linear(2 * hidden, vocab)

    def forward(self, prev_embed: torch.Tensor, state: torch.Tensor, encoder: torch.Tensor):
        # prev_embed: (batch, embed); state: (batch, hidden); encoder: (batch, src_len, hidden)
        energy = self.energy(torch.tanh(self.key(encoder) + self.query(state).unsqueeze(1)))
        attn = torch.softmax(energy.squeeze(-1), dim=1)  # (batch, src_len)
        context = torch.bmm(attn.unsqueeze(1), encoder).squeeze(1)  # (batch, hidden)
        new_state = self.cell(torch.cat([prev_embed, context], dim=1), state)
        logits = self.out(torch.cat([new_state, context], dim=1))  # (batch, vocab)
        return logits, new_state, attn


def get_inputs():
    prev_embed = torch.randn(batch, embed)
    state = torch.randn(batch, hidden) * 0.5
    encoder = torch.randn(batch, src_len, hidden) * 1.5
    return [prev_embed, state, encoder]


def get_init_inputs():
    return [hidden, embed, vocab]
