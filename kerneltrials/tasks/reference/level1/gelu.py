"""Reference solution for L1/gelu: exact (erf) GELU in an OpenMP C++ loop."""

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

static inline float gelu(float v) { return 0.5f * v * (1.f + std::erf(v * 0.70710678118654752f)); }
static inline float sigmoid(float v) { return 1.f / (1.f + std::exp(-v)); }
static inline float silu(float v) { return v / (1.f + std::exp(-v)); }

torch::Tensor gelu_forward(torch::Tensor x) {
    CHECK_F32(x);
    auto out = torch::empty_like(x);
    const float* in = x.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    const int64_t n = x.numel();
    #pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) {
        const float v = in[i];
        dst[i] = gelu(v);
    }
    return out;
}
"""

kernels = load_inline(
    name="kt_ref_gelu",
    cpp_sources=[cpp_source],
    functions=["gelu_forward"],
    extra_cflags=["-O3", "-fopenmp"],
    extra_ldflags=["-fopenmp"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return kernels.gelu_forward(x.contiguous())
