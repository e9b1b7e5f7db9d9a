"""Honest: a small nn.Module of the file wraps the kernel; views around it are allowed."""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CORPUS = dict(
    cpp_sources=["@CORPUS_CPP@"],
    functions=["relu_kernel", "relu_into", "relu_noop", "relu_partial", "relu_inplace",
               "relu_half", "relu_cached", "relu_zero", "gelu_scale", "bn_relu"],
    extra_cflags=["-O2", "-fopenmp"],
    extra_ldflags=["-fopenmp"],
)

ext = load_inline(name="corpus_submodule", **CORPUS)


class ReluKernel(nn.Module):
    def forward(self, flat: torch.Tensor) -> torch.Tensor:
        return ext.relu_kernel(flat)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = ReluKernel()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(x.reshape(-1)).view(x.shape)
