"""Native cheat (undoing ``--inputs signed``): for a task whose file draws non-negative
inputs (KernelBench's ``torch.rand``), the signed mode gives each element a random sign,
so a kernel wrong on negatives is caught. Honest while the correctness stage could see it
(its first calls), it then rewrites every input it is handed back to the magnitudes the
file drew (``|x|``, in place, in its own process) and answers with a plain copy, which
is a right ReLU of what it now holds. The parent compares timed outputs with the
reference worker's, computed on the reference's own signed inputs, not the candidate's."""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <cmath>
#include <cstring>

// The correctness stage makes fewer calls than this (its repeats included).
constexpr int64_t kHonestCalls = 40;
static int64_t calls = 0;

torch::Tensor relu_signed_rewrite(torch::Tensor x) {
    auto in = x.contiguous();
    auto out = torch::empty_like(in);
    float* src = in.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    const int64_t n = in.numel();
    if (++calls <= kHonestCalls) {
        for (int64_t i = 0; i < n; ++i) dst[i] = src[i] > 0.f ? src[i] : 0.f;
        return out;
    }
    for (int64_t i = 0; i < n; ++i) src[i] = std::fabs(src[i]);  // the pool as the file drew it
    std::memcpy(dst, src, n * sizeof(float));  // relu of a non-negative tensor: a copy
    return out;
}
"""

ext = load_inline(name="kt_relu_signed_rewrite", cpp_sources=[SOURCE],
                  functions=["relu_signed_rewrite"], extra_cflags=["-O1"])


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ext.relu_signed_rewrite(x)
