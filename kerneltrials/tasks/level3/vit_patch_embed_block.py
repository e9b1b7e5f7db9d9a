"""Small ViT front end: conv patch embedding, class token, learned position embeddings, one pre-norm transformer block, final LayerNorm."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

TASK = {
    "level": 3,
    "tags": ["vit", "transformer", "conv2d", "patch-embed", "attention", "mlp", "compute-bound"],
    "dtype": "float32",
    "configs": {
        "cpu": [
            {"batch": 4, "image": 96, "patch": 8, "heads": 4, "head_dim": 48},
            {"batch": 1, "image": 160, "patch": 8, "heads": 6, "head_dim": 32},
            {"batch": 16, "image": 64, "patch": 16, "heads": 8, "head_dim": 32},
        ],
        "gpu": [
            {"batch": 128, "image": 224, "patch": 16, "heads": 12, "head_dim": 64},
            {"batch": 32, "image": 384, "patch": 16, "heads": 16, "head_dim": 64},
            {"batch": 256, "image": 224, "patch": 32, "heads": 12, "head_dim": 64},
        ],
    },
    "ranges": {"batch": [1, 1024], "image": [16, 512], "patch": [4, 32], "heads": [1, 32],
               "head_dim": [8, 128]},
    "multiple_of": {"image": 32, "patch": 4, "head_dim": 8},
    "backward": False,
}

batch = 4
image = 96
patch = 8
heads = 4
head_dim = 48
embed_dim = heads * head_dim


def trained_ln(dim: int) -> nn.LayerNorm:
    norm = nn.LayerNorm(dim, eps=1e-6)
    with torch.no_grad():
        norm.weight.uniform_(0.5, 1.5)
        norm.bias.normal_(0.0, 0.2)
    return norm


class Model(nn.Module):
    def __init__(self, image: int, patch: int, dim: int, heads: int):
        super().__init__()
        patches = (image // patch) ** 2
        self.heads = heads
        self.patch_embed = nn.Conv2d(3, dim, kernel_size=patch, stride=patch)
        self.cls_token = nn.Parameter(0.5 * torch.randn(1, 1, dim))
        self.pos_embed = nn.Parameter(0.5 * torch.randn(1, patches + 1, dim))
        self.ln1, self.ln2, self.ln_final = trained_ln(dim), trained_ln(dim), trained_ln(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        x = self.patch_embed(images).flatten(2).transpose(1, 2)  # (b, patches, dim)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1) + self.pos_embed
        b, n, e = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, n, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
        attn = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
        x = x + self.proj((attn @ v).transpose(1, 2).reshape(b, n, e))
        x = x + self.fc2(F.gelu(self.fc1(self.ln2(x))))
        return self.ln_final(x)  # (b, patches + 1, dim)


def get_inputs():
    return [torch.randn(batch, 3, image, image)]


def get_init_inputs():
    return [image, patch, embed_dim, heads]
