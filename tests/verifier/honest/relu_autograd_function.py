"""Honest: a torch.autograd.Function whose forward launches the kernel."""

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

ext = load_inline(name="corpus_autograd", **CORPUS)


class ReluFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return ext.relu_kernel(x)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ReluFunction.apply(x)
