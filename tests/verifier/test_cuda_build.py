"""A CUDA candidate compiles on this GPU-less machine and is reported ``not_run``."""

from __future__ import annotations

import uuid

import pytest

import kerneltrials
from kerneltrials.verifier import QUICK_TIMING, CheckOptions, Status
from tests.verifier._build_fixtures import has_nvcc, torch_builds_cuda

CUDA_CANDIDATE = r'''
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>
__global__ void relu_kernel(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
torch::Tensor relu_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int64_t n = x.numel();
    relu_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""
cpp_source = "torch::Tensor relu_cuda(torch::Tensor x);"

ext = load_inline(name="kt_test_relu_cuda", cpp_sources=cpp_source, cuda_sources=cuda_source,
                  functions=["relu_cuda"])


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.relu_cuda(x)
'''


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.skipif(not has_nvcc(),
                    reason="nvcc not found: set CUDA_HOME to a CUDA toolkit to compile CUDA candidates")
@pytest.mark.skipif(not torch_builds_cuda(), reason="torch is a CPU-only build: it cannot link CUDA extensions")
def test_cuda_candidate_compiles_and_is_not_run_without_a_gpu() -> None:
    import torch

    from kerneltrials.verifier.builds._fast import find_fast_cxx

    options = CheckOptions(backend="cuda", timing=QUICK_TIMING, compile_baseline=False)
    # A fresh comment each run: a cold build, so the verdict shows how it was built.
    candidate = CUDA_CANDIDATE.replace('cuda_source = """', f'cuda_source = """// {uuid.uuid4()}')
    verdict = kerneltrials.check("L1/relu", candidate, backend="cuda", hidden_seed=3,
                                 compile_baseline=False, options=options)
    assert verdict.compiled, verdict.reasons
    if find_fast_cxx() is not None:  # host code by clang, kernels by nvcc (docs/design/builds.md)
        assert verdict.build["paths"] == ["fast+split"], verdict.build
    if torch.cuda.is_available():
        assert verdict.status == Status.CORRECT, verdict.reasons
    else:
        assert verdict.status == Status.NOT_RUN
        assert any(reason.startswith("device:no_gpu") for reason in verdict.reasons)
        assert verdict.speedup is None
