"""Tiny VAE encoder: two strided conv + LeakyReLU stages, linear heads for mean and log-variance, reparameterised sample with given noise, KL term."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 3,
    "tags": ["vae", "conv2d", "linear", "gemm", "reparameterization", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 48, "in_channels": 3, "height": 32, "width": 32, "latent": 64},
            {"batch": 16, "in_channels": 1, "height": 64, "width": 48, "latent": 32},
            {"batch": 128, "in_channels": 3, "height": 16, "width": 20, "latent": 100},
        ],
        "gpu": [
            {"batch": 512, "in_channels": 3, "height": 64, "width": 64, "latent": 128},
            {"batch": 128, "in_channels": 3, "height": 128, "width": 128, "latent": 256},
            {"batch": 2048, "in_channels": 1, "height": 32, "width": 32, "latent": 64},
        ],
    },
    "ranges": {"batch": [1, 4096], "in_channels": [1, 16], "height": [4, 256], "width": [4, 256],
               "latent": [1, 1024]},
    "multiple_of": {"height": 4, "width": 4},
    "backward": False,
}

batch = 48
in_channels = 3
height = 32
width = 32
latent = 64
base = 32


class Model(nn.Module):
    def __init__(self, in_channels: int, height: int, width: int, latent: int, base: int):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, base, 4, stride=2, padding=1)
        self.conv2 = nn.Conv2d(base, 2 * base, 4, stride=2, padding=1)
        features = 2 * base * (height // 4) * (width // 4)
        self.mean = nn.Linear(features, latent)
        self.log_var = nn.Linear(features, latent)

    def forward(self, x: torch.Tensor, noise: torch.Tensor):
        h = F.leaky_relu(self.conv1(x), 0.2)
        h = F.leaky_relu(self.conv2(h), 0.2).flatten(1)  # (batch, features)
        mean, log_var = self.mean(h), self.log_var(h)  # (batch, latent)
        z = mean + torch.exp(0.5 * log_var) * noise
        kl = -0.5 * torch.sum(1 + log_var - mean.pow(2) - log_var.exp(), dim=1)  # (batch,)
        return z, kl


def get_inputs():
    return [torch.randn(batch, in_channels, height, width), torch.randn(batch, latent)]


def get_init_inputs():
    return [in_channels, height, width, latent, base]
