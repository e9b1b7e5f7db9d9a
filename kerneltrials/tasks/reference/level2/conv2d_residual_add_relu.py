"""Reference solution for L2/conv2d_residual_add_relu: PyTorch's convolution, then residual add +
ReLU fused in C++.
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

torch::Tensor add_relu(torch::Tensor y, torch::Tensor x) {
    CHECK_F32(y); CHECK_F32(x);
    TORCH_CHECK(y.sizes() == x.sizes(), "residual shape mismatch");
    auto out = torch::empty_like(y);
    const float* a = y.data_ptr<float>();
    const float* b = x.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    const int64_t n = y.numel();
    #pragma omp parallel for simd schedule(static)
    for (int64_t i = 0; i < n; ++i) dst[i] = std::max(a[i] + b[i], 0.f);
    return out;
}
"""

kernels = load_inline(
    name="kt_ref_conv2d_residual_add_relu",
    cpp_sources=[cpp_source],
    functions=["add_relu"],
    extra_cflags=["-O3", "-fopenmp"],
    extra_ldflags=["-fopenmp"],
)


class ModelNew(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, kernel_size=3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        return kernels.add_relu(self.conv(x).contiguous(), x)
