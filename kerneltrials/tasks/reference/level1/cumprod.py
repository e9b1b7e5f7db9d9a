"""Reference solution for L1/cumprod: row prefix products in C++ with a double running product."""

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

torch::Tensor cumprod_rows(torch::Tensor x) {
    CHECK_F32(x);
    const int64_t rows = x.size(0), cols = x.size(1);
    auto out = torch::empty_like(x);
    const float* src = x.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    #pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < rows; ++r) {
        double running = 1.0;
        for (int64_t j = 0; j < cols; ++j) {
            running *= src[r * cols + j];
            dst[r * cols + j] = static_cast<float>(running);
        }
    }
    return out;
}
"""

kernels = load_inline(
    name="kt_ref_cumprod",
    cpp_sources=[cpp_source],
    functions=["cumprod_rows"],
    extra_cflags=["-O3", "-fopenmp"],
    extra_ldflags=["-fopenmp"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return kernels.cumprod_rows(x.contiguous())
