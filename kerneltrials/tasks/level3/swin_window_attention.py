"""Swin window attention: partition the feature map into 7x7 windows, multi-head attention within each window with a learned relative-position bias, merge back."""

import math

import torch
import torch.nn as nn

TASK = {
    "level": 3,
    "tags": ["swin", "attention", "window-attention", "relative-position", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 4, "windows_h": 4, "windows_w": 4, "heads": 3, "head_dim": 32},
            {"batch": 1, "windows_h": 8, "windows_w": 6, "heads": 6, "head_dim": 32},
            {"batch": 16, "windows_h": 2, "windows_w": 3, "heads": 4, "head_dim": 24},
        ],
        "gpu": [
            {"batch": 128, "windows_h": 8, "windows_w": 8, "heads": 3, "head_dim": 32},
            {"batch": 64, "windows_h": 4, "windows_w": 4, "heads": 12, "head_dim": 32},
            {"batch": 32, "windows_h": 16, "windows_w": 16, "heads": 4, "head_dim": 32},
        ],
    },
    "ranges": {"batch": [1, 1024], "windows_h": [1, 64], "windows_w": [1, 64], "heads": [1, 32],
               "head_dim": [8, 128]},
    "multiple_of": {"head_dim": 8},
    "backward": False,
}

batch = 4
windows_h = 4
windows_w = 4
heads = 3
head_dim = 32
window = 7
dim = heads * head_dim


class Model(nn.Module):
    def __init__(self, dim: int, heads: int, window: int):
        super().__init__()
        self.heads, self.window = heads, window
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.bias_table = nn.Parameter(torch.randn((2 * window - 1) ** 2, heads))
        coords = torch.stack(torch.meshgrid(torch.arange(window), torch.arange(window),
                                            indexing="ij")).flatten(1)  # (2, window^2)
        relative = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0) + (window - 1)
        self.register_buffer("bias_index", relative[..., 0] * (2 * window - 1) + relative[..., 1])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, h, w, c = x.shape  # channels-last feature map
        ws = self.window
        win = x.view(b, h // ws, ws, w // ws, ws, c).permute(0, 1, 3, 2, 4, 5).reshape(-1, ws * ws, c)
        n = win.shape[0]
        q, k, v = self.qkv(win).view(n, ws * ws, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (windows, heads, 49, 49)
        bias = self.bias_table[self.bias_index].permute(2, 0, 1)  # (heads, 49, 49)
        attn = torch.softmax(scores + bias, dim=-1)
        y = self.proj((attn @ v).transpose(1, 2).reshape(n, ws * ws, c))
        y = y.view(b, h // ws, w // ws, ws, ws, c).permute(0, 1, 3, 2, 4, 5)
        return y.reshape(b, h, w, c)


def get_inputs():
    return [torch.randn(batch, windows_h * window, windows_w * window, dim)]


def get_init_inputs():
    return [dim, heads, window]
