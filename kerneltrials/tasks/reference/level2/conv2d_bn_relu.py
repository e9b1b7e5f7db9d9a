"""Reference solution for L2/conv2d_bn_relu: PyTorch's convolution, then conv bias + inference BN +
ReLU fused in C++.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
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

torch::Tensor bias_bn_relu(torch::Tensor y, torch::Tensor conv_bias, torch::Tensor mean,
                           torch::Tensor var, torch::Tensor gamma, torch::Tensor beta, double eps) {
    CHECK_F32(y); CHECK_F32(conv_bias); CHECK_F32(mean); CHECK_F32(var); CHECK_F32(gamma);
    CHECK_F32(beta);
    const int64_t batch = y.size(0), channels = y.size(1), hw = y.size(2) * y.size(3);
    std::vector<float> scale(channels), shift(channels);
    for (int64_t c = 0; c < channels; ++c) {  // bn(y + b) = y * s + ((b - mean) * s + beta)
        const double s = gamma.data_ptr<float>()[c] / std::sqrt(double(var.data_ptr<float>()[c]) + eps);
        scale[c] = static_cast<float>(s);
        shift[c] = static_cast<float>((double(conv_bias.data_ptr<float>()[c]) - mean.data_ptr<float>()[c]) * s
                                      + beta.data_ptr<float>()[c]);
    }
    auto out = torch::empty_like(y);
    const float* src = y.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    #pragma omp parallel for schedule(static)
    for (int64_t plane = 0; plane < batch * channels; ++plane) {
        const int64_t c = plane % channels;
        const float s = scale[c], t = shift[c];
        for (int64_t i = plane * hw; i < (plane + 1) * hw; ++i) dst[i] = std::max(src[i] * s + t, 0.f);
    }
    return out;
}
"""

kernels = load_inline(
    name="kt_ref_conv2d_bn_relu",
    cpp_sources=[cpp_source],
    functions=["bias_bn_relu"],
    extra_cflags=["-O3", "-fopenmp"],
    extra_ldflags=["-fopenmp"],
)


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1)
        self.bn = nn.BatchNorm2d(out_channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.conv2d(x, self.conv.weight, None, padding=1)  # bias is folded into the C++ epilogue
        bn = self.bn
        return kernels.bias_bn_relu(y.contiguous(), self.conv.bias.contiguous(),
                                    bn.running_mean.contiguous(), bn.running_var.contiguous(),
                                    bn.weight.contiguous(), bn.bias.contiguous(), bn.eps)
