"""Reference solution for L1/rmsnorm: row RMS norm in C++ (double sum of squares)."""

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

torch::Tensor rmsnorm_rows(torch::Tensor x, torch::Tensor weight, double eps) {
    CHECK_F32(x); CHECK_F32(weight);
    const int64_t cols = x.size(-1), rows = x.numel() / cols;
    auto out = torch::empty_like(x);
    const float* src = x.data_ptr<float>();
    const float* w = weight.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    #pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < rows; ++r) {
        const float* in = src + r * cols;
        double squares = 0.0;
        for (int64_t j = 0; j < cols; ++j) squares += double(in[j]) * in[j];
        const float inverse = static_cast<float>(1.0 / std::sqrt(squares / cols + eps));
        float* o = dst + r * cols;
        for (int64_t j = 0; j < cols; ++j) o[j] = in[j] * inverse * w[j];
    }
    return out;
}
"""

kernels = load_inline(
    name="kt_ref_rmsnorm",
    cpp_sources=[cpp_source],
    functions=["rmsnorm_rows"],
    extra_cflags=["-O3", "-fopenmp"],
    extra_ldflags=["-fopenmp"],
)


class ModelNew(nn.Module):
    def __init__(self, hidden: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return kernels.rmsnorm_rows(x.contiguous(), self.weight.contiguous(), float(self.eps))
