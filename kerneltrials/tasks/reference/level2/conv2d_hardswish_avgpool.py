"""Reference solution for L2/conv2d_hardswish_avgpool: PyTorch's convolution, then hard-swish + 2x2
average pool fused in C++.
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

static inline float hardswish(float v) { return v * std::min(std::max(v + 3.f, 0.f), 6.f) / 6.f; }

torch::Tensor hardswish_avgpool2(torch::Tensor y) {
    CHECK_F32(y);
    const int64_t planes = y.size(0) * y.size(1), h = y.size(2), w = y.size(3);
    const int64_t ph = h / 2, pw = w / 2;
    auto out = torch::empty({y.size(0), y.size(1), ph, pw}, y.options());
    const float* src = y.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    #pragma omp parallel for schedule(static)
    for (int64_t p = 0; p < planes; ++p) {
        const float* in = src + p * h * w;
        float* o = dst + p * ph * pw;
        for (int64_t i = 0; i < ph; ++i) {
            const float* top = in + 2 * i * w;
            const float* bottom = top + w;
            for (int64_t j = 0; j < pw; ++j)
                o[i * pw + j] = (hardswish(top[2 * j]) + hardswish(top[2 * j + 1])
                                 + hardswish(bottom[2 * j]) + hardswish(bottom[2 * j + 1])) * 0.25f;
        }
    }
    return out;
}
"""

kernels = load_inline(
    name="kt_ref_conv2d_hardswish_avgpool",
    cpp_sources=[cpp_source],
    functions=["hardswish_avgpool2"],
    extra_cflags=["-O3", "-fopenmp"],
    extra_ldflags=["-fopenmp"],
)


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return kernels.hardswish_avgpool2(self.conv(x).contiguous())
