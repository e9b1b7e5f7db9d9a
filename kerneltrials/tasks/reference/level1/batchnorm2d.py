"""Reference solution for L1/batchnorm2d: inference batch norm as one multiply-add per element in
C++.
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

torch::Tensor batchnorm_inference(torch::Tensor x, torch::Tensor mean, torch::Tensor var,
                                  torch::Tensor gamma, torch::Tensor beta, double eps) {
    CHECK_F32(x); CHECK_F32(mean); CHECK_F32(var); CHECK_F32(gamma); CHECK_F32(beta);
    const int64_t channels = x.size(1), planes = x.size(0) * channels, hw = x.numel() / planes;
    auto out = torch::empty_like(x);
    const float* src = x.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    const float* mu = mean.data_ptr<float>();
    const float* va = var.data_ptr<float>();
    const float* g = gamma.data_ptr<float>();
    const float* be = beta.data_ptr<float>();
    #pragma omp parallel for schedule(static)
    for (int64_t p = 0; p < planes; ++p) {
        const int64_t c = p % channels;
        const double s = g[c] / std::sqrt(double(va[c]) + eps);
        const float scale = static_cast<float>(s), shift = static_cast<float>(be[c] - mu[c] * s);
        for (int64_t i = p * hw; i < (p + 1) * hw; ++i) dst[i] = src[i] * scale + shift;
    }
    return out;
}
"""

kernels = load_inline(
    name="kt_ref_batchnorm2d",
    cpp_sources=[cpp_source],
    functions=["batchnorm_inference"],
    extra_cflags=["-O3", "-fopenmp"],
    extra_ldflags=["-fopenmp"],
)


class ModelNew(nn.Module):
    def __init__(self, channels: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(channels))
        self.bias = nn.Parameter(torch.zeros(channels))
        self.register_buffer("running_mean", torch.zeros(channels))
        self.register_buffer("running_var", torch.ones(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return kernels.batchnorm_inference(x.contiguous(), self.running_mean.contiguous(),
                                           self.running_var.contiguous(), self.weight.contiguous(),
                                           self.bias.contiguous(), float(self.eps))
