"""Honest: out-parameter style; the harness allocates nothing, forward allocates the output."""

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

ext = load_inline(name="corpus_out_param", **CORPUS)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)  # (rows, cols)
        ext.relu_into(x.contiguous(), out)
        return out
