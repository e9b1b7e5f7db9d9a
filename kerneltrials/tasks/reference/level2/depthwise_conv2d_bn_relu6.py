"""Reference solution for L2/depthwise_conv2d_bn_relu6: direct 3x3 depthwise convolution in C++,
fused BN + ReLU6.
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

torch::Tensor depthwise_conv2d_bn_relu6(torch::Tensor x, torch::Tensor weight, torch::Tensor mean,
                                        torch::Tensor var, torch::Tensor gamma, torch::Tensor beta,
                                        double eps) {
    CHECK_F32(x); CHECK_F32(weight); CHECK_F32(mean); CHECK_F32(var); CHECK_F32(gamma);
    CHECK_F32(beta);
    const int64_t batch = x.size(0), channels = x.size(1), h = x.size(2), w = x.size(3);
    auto out = torch::empty_like(x);
    const float* xp = x.data_ptr<float>();
    const float* wp = weight.data_ptr<float>();  // (channels, 1, 3, 3)
    float* o = out.data_ptr<float>();
    const float* mu = mean.data_ptr<float>();
    const float* va = var.data_ptr<float>();
    const float* g = gamma.data_ptr<float>();
    const float* be = beta.data_ptr<float>();
    #pragma omp parallel for schedule(static)
    for (int64_t plane = 0; plane < batch * channels; ++plane) {
        const int64_t c = plane % channels;
        const double s = g[c] / std::sqrt(double(va[c]) + eps);
        const float scale = static_cast<float>(s);
        const float shift = static_cast<float>(be[c] - mu[c] * s);
        const float* src = xp + plane * h * w;
        const float* k = wp + c * 9;
        float* dst = o + plane * h * w;
        std::vector<float> acc(w);
        for (int64_t oh = 0; oh < h; ++oh) {
            std::fill(acc.begin(), acc.end(), 0.f);
            for (int64_t kh = 0; kh < 3; ++kh) {
                const int64_t ih = oh + kh - 1;
                if (ih < 0 || ih >= h) continue;
                const float* row = src + ih * w;
                // kw = 0 reads column ow - 1, kw = 2 reads ow + 1: clip the ranges at the borders.
                const float k0 = k[kh * 3], k1 = k[kh * 3 + 1], k2 = k[kh * 3 + 2];
                for (int64_t ow = 1; ow < w; ++ow) acc[ow] += k0 * row[ow - 1];
                for (int64_t ow = 0; ow < w; ++ow) acc[ow] += k1 * row[ow];
                for (int64_t ow = 0; ow + 1 < w; ++ow) acc[ow] += k2 * row[ow + 1];
            }
            float* out_row = dst + oh * w;
            for (int64_t ow = 0; ow < w; ++ow)
                out_row[ow] = std::min(std::max(acc[ow] * scale + shift, 0.f), 6.f);
        }
    }
    return out;
}
"""

kernels = load_inline(
    name="kt_ref_depthwise_conv2d_bn_relu6",
    cpp_sources=[cpp_source],
    functions=["depthwise_conv2d_bn_relu6"],
    extra_cflags=["-O3", "-fopenmp"],
    extra_ldflags=["-fopenmp"],
)


class ModelNew(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, kernel_size=3, padding=1, groups=channels,
                              bias=False)
        self.bn = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        bn = self.bn
        return kernels.depthwise_conv2d_bn_relu6(
            x.contiguous(), self.conv.weight.contiguous(), bn.running_mean.contiguous(),
            bn.running_var.contiguous(), bn.weight.contiguous(), bn.bias.contiguous(), bn.eps)
