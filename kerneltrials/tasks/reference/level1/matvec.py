"""Reference solution for L1/matvec: row dot products in C++ (SIMD reduction, OpenMP over rows)."""

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

torch::Tensor matvec(torch::Tensor a, torch::Tensor x) {
    CHECK_F32(a); CHECK_F32(x);
    const int64_t m = a.size(0), k = a.size(1);
    auto out = torch::empty({m}, a.options());
    const float* ap = a.data_ptr<float>();
    const float* xp = x.data_ptr<float>();
    float* o = out.data_ptr<float>();
    #pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < m; ++i) {
        const float* row = ap + i * k;
        float sum = 0.f;
        #pragma omp simd reduction(+:sum)
        for (int64_t j = 0; j < k; ++j) sum += row[j] * xp[j];
        o[i] = sum;
    }
    return out;
}
"""

kernels = load_inline(
    name="kt_ref_matvec",
    cpp_sources=[cpp_source],
    functions=["matvec"],
    extra_cflags=["-O3", "-fopenmp"],
    extra_ldflags=["-fopenmp"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return kernels.matvec(a.contiguous(), x.contiguous())
