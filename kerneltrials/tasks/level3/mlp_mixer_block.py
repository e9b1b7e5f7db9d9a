"""MLP-Mixer block: token-mixing MLP across patches and channel-mixing MLP across features, each pre-LayerNorm with a residual; forward and backward."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 3,
    "tags": ["mlp-mixer", "mlp", "layernorm", "gemm", "residual", "backward", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 8, "patches": 64, "channels": 256},
            {"batch": 2, "patches": 196, "channels": 255},
            {"batch": 32, "patches": 49, "channels": 128},
        ],
        "gpu": [
            {"batch": 256, "patches": 196, "channels": 768},
            {"batch": 64, "patches": 576, "channels": 1024},
            {"batch": 1024, "patches": 64, "channels": 512},
        ],
    },
    "ranges": {"batch": [1, 2048], "patches": [1, 4096], "channels": [8, 4096]},
    "multiple_of": {},
    "backward": True,
}

batch = 8
patches = 64
channels = 256


def trained_ln(dim: int) -> nn.LayerNorm:
    norm = nn.LayerNorm(dim, eps=1e-6)
    with torch.no_grad():
        norm.weight.uniform_(0.5, 1.5)
        norm.bias.normal_(0.0, 0.2)
    return norm


class Model(nn.Module):
    def __init__(self, patches: int, channels: int):
        super().__init__()
        self.ln_tokens = trained_ln(channels)
        self.token_fc1 = nn.Linear(patches, patches // 2 + 1)
        self.token_fc2 = nn.Linear(patches // 2 + 1, patches)
        self.ln_channels = trained_ln(channels)
        self.channel_fc1 = nn.Linear(channels, 4 * channels)
        self.channel_fc2 = nn.Linear(4 * channels, channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.ln_tokens(x).transpose(1, 2)  # (batch, channels, patches)
        x = x + self.token_fc2(F.gelu(self.token_fc1(y))).transpose(1, 2)
        return x + self.channel_fc2(F.gelu(self.channel_fc1(self.ln_channels(x))))


def get_inputs():
    return [torch.randn(batch, patches, channels)]


def get_init_inputs():
    return [patches, channels]
