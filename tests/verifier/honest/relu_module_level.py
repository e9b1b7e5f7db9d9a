"""Honest: the extension built at module level, forward calls one kernel."""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

ext = load_inline(
    name="corpus_relu",
    cpp_sources=["@CORPUS_CPP@"],
    functions=["relu_kernel", "relu_into", "relu_noop", "relu_partial", "relu_inplace",
               "relu_half", "relu_cached", "relu_zero", "gelu_scale", "bn_relu"],
    extra_cflags=["-O2", "-fopenmp"],
    extra_ldflags=["-fopenmp"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ext.relu_kernel(x)
