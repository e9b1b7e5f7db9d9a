"""Reference solution for L1/add_mul: (a + b) * c fused into one OpenMP C++ pass."""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cpp_source = r"""
#include <torch/extension.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#define CHECK_F32(t) \
    TORCH_CHECK((t).is_contiguous() && (t).scalar_type() == torch::kFloat32, \
                #t " must be a contiguous float32 tensor")

torch::Tensor add_mul(torch::Tensor a, torch::Tensor b, torch::Tensor c) {
    CHECK_F32(a); CHECK_F32(b); CHECK_F32(c);
    auto out = torch::empty_like(a);
    const float* ap = a.data_ptr<float>();
    const float* bp = b.data_ptr<float>();
    const float* cp = c.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    const int64_t n = a.numel();
    #pragma omp parallel for simd schedule(static)
    for (int64_t i = 0; i < n; ++i) dst[i] = (ap[i] + bp[i]) * cp[i];
    return out;
}
"""

kernels = load_inline(
    name="kt_ref_add_mul",
    cpp_sources=[cpp_source],
    functions=["add_mul"],
    extra_cflags=["-O3", "-fopenmp"],
    extra_ldflags=["-fopenmp"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        return kernels.add_mul(a.contiguous(), b.contiguous(), c.contiguous())
