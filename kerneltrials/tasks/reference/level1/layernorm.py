"""Reference solution for L1/layernorm: row layer norm in C++ (two-pass, double statistics)."""

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

torch::Tensor layernorm_rows(torch::Tensor x, torch::Tensor gamma, torch::Tensor beta, double eps) {
    CHECK_F32(x); CHECK_F32(gamma); CHECK_F32(beta);
    const int64_t cols = x.size(-1), rows = x.numel() / cols;
    auto out = torch::empty_like(x);
    const float* src = x.data_ptr<float>();
    const float* g = gamma.data_ptr<float>();
    const float* be = beta.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    #pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < rows; ++r) {
        const float* in = src + r * cols;
        double sum = 0.0;
        for (int64_t j = 0; j < cols; ++j) sum += in[j];
        const double mean = sum / cols;
        double squares = 0.0;
        for (int64_t j = 0; j < cols; ++j) { const double d = in[j] - mean; squares += d * d; }
        const float mu = static_cast<float>(mean);
        const float rstd = static_cast<float>(1.0 / std::sqrt(squares / cols + eps));
        float* o = dst + r * cols;
        for (int64_t j = 0; j < cols; ++j) o[j] = (in[j] - mu) * rstd * g[j] + be[j];
    }
    return out;
}
"""

kernels = load_inline(
    name="kt_ref_layernorm",
    cpp_sources=[cpp_source],
    functions=["layernorm_rows"],
    extra_cflags=["-O3", "-fopenmp"],
    extra_ldflags=["-fopenmp"],
)


class ModelNew(nn.Module):
    def __init__(self, hidden: int, eps: float):
        super().__init__()
        self.norm = nn.LayerNorm(hidden, eps=eps)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return kernels.layernorm_rows(x.contiguous(), self.norm.weight.contiguous(),
                                      self.norm.bias.contiguous(), self.norm.eps)
