"""Reference solution for L1/relu: an OpenMP-parallel, vectorisable C++ loop."""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cpp_source = r"""
#include <torch/extension.h>

torch::Tensor relu_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_contiguous() && x.scalar_type() == torch::kFloat32, "float32 contiguous");
    auto out = torch::empty_like(x);
    const float* in = x.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    const int64_t n = x.numel();
    #pragma omp parallel for simd schedule(static)
    for (int64_t i = 0; i < n; ++i) {
        dst[i] = in[i] > 0.f ? in[i] : 0.f;
    }
    return out;
}
"""

relu_module = load_inline(
    name="kt_ref_relu",
    cpp_sources=[cpp_source],
    functions=["relu_forward"],
    extra_cflags=["-O3", "-fopenmp"],
    extra_ldflags=["-fopenmp"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return relu_module.relu_forward(x.contiguous())
