"""Honest: the module keeps the extension as an attribute and calls through it."""

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

_ext = load_inline(name="corpus_self_ext", **CORPUS)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ops = _ext

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.ops.relu_kernel(x)
