"""Test candidates built from ONE shared C++ source, so the suite compiles it once.

Each candidate calls a different function of the same extension: the honest one, a
wrong one, one that crashes, one that hangs, one that is only right on the public
shapes of L1/relu. The build cache keys on content, so every candidate here hits the
same cached library.
"""

from __future__ import annotations

SHARED_CPP = r'''
#include <torch/extension.h>
#include <cstdlib>

static torch::Tensor apply(torch::Tensor x, float negative_slope) {
    auto out = torch::empty_like(x);
    const float* in = x.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    const int64_t n = x.numel();
    #pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) dst[i] = in[i] > 0.f ? in[i] : negative_slope * in[i];
    return out;
}

torch::Tensor relu_ok(torch::Tensor x) { return apply(x.contiguous(), 0.f); }

torch::Tensor relu_wrong(torch::Tensor x) { return apply(x.contiguous(), 0.01f); }

torch::Tensor relu_crash(torch::Tensor x) {
    volatile float* nowhere = nullptr;
    nowhere[x.numel()] = 1.f;  // SIGSEGV on the first call
    return x;
}

torch::Tensor relu_hang(torch::Tensor x) {
    volatile int64_t spin = 0;
    while (spin >= 0) spin = spin + 1 - 1;  // never returns
    return x;
}

// Right only on the public shapes of L1/relu: hard-coding that hidden shapes catch.
torch::Tensor relu_public_only(torch::Tensor x) {
    const int64_t n = x.numel();
    const bool known = n == 509LL * 4093 || n == 64LL * 65521 || n == 1000LL * 999 || n == 4096LL * 393;
    return apply(x.contiguous(), known ? 0.f : 0.5f);
}
'''

_TEMPLATE = '''
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

SOURCE = {source!r}

ext = load_inline(
    name="kt_test_shared",
    cpp_sources=[SOURCE],
    functions=["relu_ok", "relu_wrong", "relu_crash", "relu_hang", "relu_public_only"],
    extra_cflags=["-O2", "-fopenmp"],
    extra_ldflags=["-fopenmp"],
)


class ModelNew(nn.Module):
    def __init__(self{init_args}):
        super().__init__()

    def forward(self, x):
        return ext.{function}(x)
'''


def candidate(function: str, init_args: str = "", salt: str = "") -> str:
    """A candidate module whose forward calls ``function`` of the shared extension; a
    ``salt`` makes its C++ source (and so its build) unique."""
    source = SHARED_CPP.replace("#include <cstdlib>", f"#include <cstdlib>\n// salt {salt}") \
        if salt else SHARED_CPP
    return _TEMPLATE.format(source=source, function=function, init_args=init_args)


_SLOW_RELU_FORWARD = """
    def forward(self, x):
        out = ext.relu_ok(x)
        for _ in range(5):  # relu is idempotent: the same answer, six times the work
            out = ext.relu_ok(out)
        return out
"""


def slow_relu_candidate() -> str:
    """``relu_ok`` called six times per forward: correct, about 0.2x (the adaptive stop's
    clearly slow candidate)."""
    source = candidate("relu_ok").replace(
        "\n    def forward(self, x):\n        return ext.relu_ok(x)\n", _SLOW_RELU_FORWARD)
    assert "range(5)" in source
    return source
