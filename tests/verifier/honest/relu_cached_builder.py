"""Honest: the extension is built lazily by a cached helper function."""

import functools

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


@functools.cache
def kernels():
    return load_inline(name="corpus_builder", **CORPUS)


kernels()  # build at import time, as the harness requires


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return kernels().relu_kernel(x)
