"""Reference solution for L2/conv2d_sub_mean_gelu: PyTorch's convolution, then spatial-mean
subtraction + GELU in C++.
"""

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

torch::Tensor sub_mean_gelu(torch::Tensor y) {
    CHECK_F32(y);
    const int64_t planes = y.size(0) * y.size(1), hw = y.size(2) * y.size(3);
    auto out = torch::empty_like(y);
    const float* src = y.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    #pragma omp parallel for schedule(static)
    for (int64_t p = 0; p < planes; ++p) {
        const float* in = src + p * hw;
        double sum = 0.0;
        for (int64_t i = 0; i < hw; ++i) sum += in[i];
        const float mean = static_cast<float>(sum / hw);
        float* o = dst + p * hw;
        for (int64_t i = 0; i < hw; ++i) o[i] = gelu(in[i] - mean);
    }
    return out;
}
"""

kernels = load_inline(
    name="kt_ref_conv2d_sub_mean_gelu",
    cpp_sources=[cpp_source],
    functions=["sub_mean_gelu"],
    extra_cflags=["-O3", "-fopenmp"],
    extra_ldflags=["-fopenmp"],
)


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return kernels.sub_mean_gelu(self.conv(x).contiguous())
