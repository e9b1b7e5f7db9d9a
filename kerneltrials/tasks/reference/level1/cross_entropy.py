"""Reference solution for L1/cross_entropy: per-row log-sum-exp minus the target logit, averaged,
in C++.
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

torch::Tensor cross_entropy(torch::Tensor logits, torch::Tensor targets) {
    CHECK_F32(logits);
    TORCH_CHECK(targets.is_contiguous() && targets.scalar_type() == torch::kLong, "int64 targets");
    const int64_t rows = logits.size(0), cols = logits.size(1);
    const float* src = logits.data_ptr<float>();
    const int64_t* tp = targets.data_ptr<int64_t>();
    double total = 0.0;
    #pragma omp parallel for reduction(+:total) schedule(static)
    for (int64_t r = 0; r < rows; ++r) {
        const float* in = src + r * cols;
        float peak = -INFINITY;
        for (int64_t j = 0; j < cols; ++j) peak = std::max(peak, in[j]);
        double sum = 0.0;
        for (int64_t j = 0; j < cols; ++j) sum += std::exp(double(in[j]) - peak);
        total += peak + std::log(sum) - in[tp[r]];
    }
    auto out = torch::empty({}, logits.options());
    out.data_ptr<float>()[0] = static_cast<float>(total / rows);
    return out;
}
"""

kernels = load_inline(
    name="kt_ref_cross_entropy",
    cpp_sources=[cpp_source],
    functions=["cross_entropy"],
    extra_cflags=["-O3", "-fopenmp"],
    extra_ldflags=["-fopenmp"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return kernels.cross_entropy(logits.contiguous(), targets.contiguous())
