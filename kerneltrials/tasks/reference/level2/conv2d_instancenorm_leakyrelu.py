"""Reference solution for L2/conv2d_instancenorm_leakyrelu: PyTorch's convolution, then instance
norm + leaky ReLU in C++.
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

torch::Tensor instancenorm_leakyrelu(torch::Tensor y, double eps, double slope) {
    CHECK_F32(y);
    const int64_t planes = y.size(0) * y.size(1), hw = y.size(2) * y.size(3);
    auto out = torch::empty_like(y);
    const float* src = y.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    const float negative = static_cast<float>(slope);
    #pragma omp parallel for schedule(static)
    for (int64_t p = 0; p < planes; ++p) {
        const float* in = src + p * hw;
        double sum = 0.0;
        for (int64_t i = 0; i < hw; ++i) sum += in[i];
        const double mean = sum / hw;
        double squares = 0.0;
        for (int64_t i = 0; i < hw; ++i) { const double d = in[i] - mean; squares += d * d; }
        const float mu = static_cast<float>(mean);
        const float rstd = static_cast<float>(1.0 / std::sqrt(squares / hw + eps));
        float* o = dst + p * hw;
        for (int64_t i = 0; i < hw; ++i) {
            const float v = (in[i] - mu) * rstd;
            o[i] = v >= 0.f ? v : v * negative;
        }
    }
    return out;
}
"""

kernels = load_inline(
    name="kt_ref_conv2d_instancenorm_leakyrelu",
    cpp_sources=[cpp_source],
    functions=["instancenorm_leakyrelu"],
    extra_cflags=["-O3", "-fopenmp"],
    extra_ldflags=["-fopenmp"],
)


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return kernels.instancenorm_leakyrelu(self.conv(x).contiguous(), 1e-5, 0.2)
