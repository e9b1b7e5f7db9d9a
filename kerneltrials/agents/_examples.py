"""The worked example shown to the model: a tiny elementwise add, as reference and candidate.

The candidates are in the format docs/design/interfaces.md fixes ("Candidate file"):
``class ModelNew``
building its kernel with ``load_inline`` — ``cpp_sources`` with OpenMP on the cpu backend,
``cuda_sources`` (plus a ``cpp_sources`` declaration) on the cuda backend.
"""

from __future__ import annotations

REFERENCE = """import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return a + b


N = 1 << 20


def get_inputs():
    return [torch.randn(N), torch.randn(N)]


def get_init_inputs():
    return []
"""

CPU_CANDIDATE = '''import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

add_source = r"""
#include <torch/extension.h>

torch::Tensor add_forward(torch::Tensor a, torch::Tensor b) {
    TORCH_CHECK(a.device().is_cpu() && b.device().is_cpu(), "expected CPU tensors");
    TORCH_CHECK(a.scalar_type() == torch::kFloat32 && b.scalar_type() == torch::kFloat32,
                "expected float32 tensors");
    TORCH_CHECK(a.sizes() == b.sizes(), "shape mismatch");
    TORCH_CHECK(a.is_contiguous() && b.is_contiguous(), "expected contiguous tensors");
    auto out = torch::empty_like(a);
    const float* pa = a.data_ptr<float>();
    const float* pb = b.data_ptr<float>();
    float* po = out.data_ptr<float>();
    const int64_t n = a.numel();
    // One contiguous chunk per thread; the compiler vectorises the inner loop.
    #pragma omp parallel for simd schedule(static)
    for (int64_t i = 0; i < n; ++i) {
        po[i] = pa[i] + pb[i];
    }
    return out;
}
"""

add_module = load_inline(
    name="elementwise_add_cpu",
    cpp_sources=add_source,
    functions=["add_forward"],
    extra_cflags=["-O3", "-march=native", "-fopenmp"],
    extra_ldflags=["-fopenmp"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return add_module.add_forward(a, b)
'''

CUDA_CANDIDATE = '''import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

add_cuda_source = r"""
#include <torch/extension.h>
#include <c10/cuda/CUDAException.h>

__global__ void add_kernel(const float* __restrict__ a, const float* __restrict__ b,
                           float* __restrict__ out, int64_t n) {
    // Grid-stride loop: any n works with a bounded grid.
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        out[i] = a[i] + b[i];
    }
}

torch::Tensor add_forward(torch::Tensor a, torch::Tensor b) {
    TORCH_CHECK(a.is_cuda() && b.is_cuda(), "expected CUDA tensors");
    TORCH_CHECK(a.scalar_type() == torch::kFloat32 && b.scalar_type() == torch::kFloat32,
                "expected float32 tensors");
    TORCH_CHECK(a.sizes() == b.sizes(), "shape mismatch");
    TORCH_CHECK(a.is_contiguous() && b.is_contiguous(), "expected contiguous tensors");
    auto out = torch::empty_like(a);
    const int64_t n = a.numel();
    const int threads = 256;
    const int blocks = (int)std::min<int64_t>((n + threads - 1) / threads, 65535);
    if (n > 0) {
        add_kernel<<<blocks, threads>>>(a.data_ptr<float>(), b.data_ptr<float>(),
                                        out.data_ptr<float>(), n);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
    }
    return out;
}
"""

add_cpp_source = "torch::Tensor add_forward(torch::Tensor a, torch::Tensor b);"

add_module = load_inline(
    name="elementwise_add_cuda",
    cpp_sources=add_cpp_source,
    cuda_sources=add_cuda_source,
    functions=["add_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return add_module.add_forward(a, b)
'''

CANDIDATES = {"cpu": CPU_CANDIDATE, "cuda": CUDA_CANDIDATE}
