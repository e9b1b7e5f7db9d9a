"""Reference solution for L1/sum_dim: sum over the middle axis in C++, contiguous inner loop,
double accumulators.
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

torch::Tensor sum_middle(torch::Tensor x) {
    CHECK_F32(x);
    const int64_t batch = x.size(0), reduce = x.size(1), inner = x.size(2);
    auto out = torch::empty({batch, inner}, x.options());
    const float* src = x.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    constexpr int64_t kChunk = 256;  // columns per task: the accumulators stay in L1
    const int64_t chunks = (inner + kChunk - 1) / kChunk;
    #pragma omp parallel for schedule(static)
    for (int64_t task = 0; task < batch * chunks; ++task) {
        const int64_t b = task / chunks, c0 = (task % chunks) * kChunk;
        const int64_t width = std::min(kChunk, inner - c0);
        double acc[kChunk] = {};
        for (int64_t r = 0; r < reduce; ++r) {
            const float* row = src + (b * reduce + r) * inner + c0;
            for (int64_t j = 0; j < width; ++j) acc[j] += row[j];
        }
        for (int64_t j = 0; j < width; ++j) dst[b * inner + c0 + j] = static_cast<float>(acc[j]);
    }
    return out;
}
"""

kernels = load_inline(
    name="kt_ref_sum_dim",
    cpp_sources=[cpp_source],
    functions=["sum_middle"],
    extra_cflags=["-O3", "-fopenmp"],
    extra_ldflags=["-fopenmp"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return kernels.sum_middle(x.contiguous())
