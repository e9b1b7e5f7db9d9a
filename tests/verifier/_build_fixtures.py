"""Small named objects for the build tests: one tiny kernel, requests for it, caches."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from kerneltrials.verifier.builds._cache import BuildCache
from kerneltrials.verifier.builds._compiler import _copier
from kerneltrials.verifier.builds._fast import PCH_FILE
from kerneltrials.verifier.protocol import BuildRequest

RELU_SOURCE = """
torch::Tensor relu_forward(torch::Tensor x) {
    auto input = x.contiguous();
    auto out = torch::empty_like(input);
    const float* src = input.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    for (int64_t i = 0; i < input.numel(); ++i) dst[i] = src[i] > 0.f ? src[i] * 1.5f : src[i] * 0.25f;
    return out;
}
"""

CUDA_SOURCE = """
__global__ void scale_kernel(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.f * x[i];
}
torch::Tensor scale_cuda(torch::Tensor x) {
    auto out = torch::empty_like(x);
    scale_kernel<<<(x.numel() + 255) / 256, 256>>>(x.data_ptr<float>(), out.data_ptr<float>(), x.numel());
    return out;
}
"""


def a_relu_request(variant: str = "", source: str = RELU_SOURCE,
                   extra_cflags: list[str] | None = None) -> BuildRequest:
    """The tiny CPU kernel; ``variant`` adds a comment, so a new key with no new PCH."""
    text = source + (f"\n// variant {variant}\n" if variant else "")
    return BuildRequest.from_load_inline("cpu", "relu_ext", [text], functions=["relu_forward"],
                                         extra_cflags=extra_cflags)


def a_cuda_request() -> BuildRequest:
    return BuildRequest.from_load_inline(
        "cuda", "scale_ext", ["torch::Tensor scale_cuda(torch::Tensor x);"],
        cuda_sources=[CUDA_SOURCE], functions=["scale_cuda"])


def has_nvcc() -> bool:
    home = os.environ.get("CUDA_HOME", "/usr/local/cuda-13.0")
    return Path(home, "bin", "nvcc").is_file() or shutil.which("nvcc") is not None


def torch_builds_cuda() -> bool:
    """Whether this torch can link CUDA extensions (a CPU-only build cannot)."""
    import torch

    return torch.version.cuda is not None


def copy_pch(key: str, shared: BuildCache, private: BuildCache) -> bool:
    """Publish in ``private`` a copy of ``shared``'s PCH entry ``key`` (verified there
    first); False when ``shared`` lacks it. A copy, never a link: whatever a test does to
    the private entry reaches only the copy. A test with a private toolchain store would
    otherwise compile that PCH again (~45 s of CPU here)."""
    entry = shared.lookup(key)
    if entry is None:
        return False
    private.get_or_build(key, _copier(entry, [PCH_FILE]))  # the files its publisher copies
    return True
