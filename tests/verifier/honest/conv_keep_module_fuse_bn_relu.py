"""Honest (mixed): keeps the PyTorch convolution, fuses batch norm + ReLU in one pass."""

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

ext = load_inline(name="corpus_conv_tail", **CORPUS)


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1)
        self.bn = nn.BatchNorm2d(out_channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)  # (batch, out_channels, height, width)
        bn = self.bn
        return ext.bn_relu(y, bn.running_mean, bn.running_var, bn.weight, bn.bias, bn.eps)
