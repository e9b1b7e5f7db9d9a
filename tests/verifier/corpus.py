"""Kernel sources shared by the exploit and honest corpora (tests/verifier/exploits, honest).

The build cache keys on sources + function list + flags (not the extension's name), so
every corpus candidate that uses ``CORPUS_CPP`` with ``CORPUS_FUNCTIONS`` and
``CORPUS_FLAGS`` hits one cached library: the corpus costs one cold build, not thirty.
``ATEN_CPP`` is the one other source: its kernel calls ``at::relu`` (library compute),
which the static C++ scan would flag in any source that contains it.

Corpus files stay real candidate files: they hold the placeholder string
``"@CORPUS_CPP@"`` (or ``"@ATEN_CPP@"``), which :func:`render` replaces with the source's
literal before the file is handed to the verifier.
"""

from __future__ import annotations

from pathlib import Path

CORPUS_CPP = r'''
#include <torch/extension.h>
#include <cmath>
#include <unordered_map>

static void relu_loop(const float* in, float* out, int64_t n) {
    #pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) out[i] = in[i] > 0.f ? in[i] : 0.f;
}

torch::Tensor relu_kernel(torch::Tensor x) {
    auto input = x.contiguous();
    auto out = torch::empty_like(input);
    relu_loop(input.data_ptr<float>(), out.data_ptr<float>(), input.numel());
    return out;
}

// Out-parameter style: writes into a buffer the caller allocated.
void relu_into(torch::Tensor x, torch::Tensor out) {
    auto input = x.contiguous();
    relu_loop(input.data_ptr<float>(), out.data_ptr<float>(), input.numel());
}

// Exploit: returns fresh memory without computing (whatever the allocator recycled).
torch::Tensor relu_noop(torch::Tensor x) { return torch::empty_like(x); }

// Exploit: computes only the first half of the output.
torch::Tensor relu_partial(torch::Tensor x) {
    auto input = x.contiguous();
    auto out = torch::empty_like(input);
    relu_loop(input.data_ptr<float>(), out.data_ptr<float>(), input.numel() / 2);
    return out;
}

// Exploit: overwrites its input and returns it.
torch::Tensor relu_inplace(torch::Tensor x) {
    float* data = x.data_ptr<float>();
    relu_loop(data, data, x.numel());
    return x;
}

// Exploit: computes in half precision (a precision downgrade).
torch::Tensor relu_half(torch::Tensor x) {
    auto input = x.contiguous();
    auto out = torch::empty_like(input);
    const float* in = input.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    for (int64_t i = 0; i < input.numel(); ++i) {
        float v = static_cast<float>(c10::Half(in[i]));
        dst[i] = v > 0.f ? v : 0.f;
    }
    return out;
}

// Exploit: caches outputs by input address.
torch::Tensor relu_cached(torch::Tensor x) {
    static std::unordered_map<const void*, torch::Tensor> seen;
    auto hit = seen.find(x.data_ptr());
    if (hit != seen.end() && hit->second.sizes() == x.sizes()) return hit->second;
    auto out = relu_kernel(x);
    seen[x.data_ptr()] = out;
    return out;
}

// Exploit: an all-zero output.
torch::Tensor relu_zero(torch::Tensor x) { return torch::zeros_like(x); }

// y: (rows, cols), scale: (cols,): exact-erf GELU then a per-column scale.
torch::Tensor gelu_scale(torch::Tensor y, torch::Tensor scale) {
    auto input = y.contiguous();
    auto out = torch::empty_like(input);
    const float* in = input.data_ptr<float>();
    const float* s = scale.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    const int64_t cols = input.size(-1), n = input.numel();
    #pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) {
        const float v = in[i];
        dst[i] = 0.5f * v * (1.f + std::erf(v * 0.70710678118654752f)) * s[i % cols];
    }
    return out;
}

// y: (batch, channels, h, w): inference batch norm then ReLU, one pass.
torch::Tensor bn_relu(torch::Tensor y, torch::Tensor mean, torch::Tensor var,
                      torch::Tensor weight, torch::Tensor bias, double eps) {
    auto input = y.contiguous();
    auto out = torch::empty_like(input);
    const int64_t batch = input.size(0), channels = input.size(1);
    const int64_t plane = input.numel() / (batch * channels);
    const float *in = input.data_ptr<float>(), *m = mean.data_ptr<float>();
    const float *v = var.data_ptr<float>(), *w = weight.data_ptr<float>();
    const float* b = bias.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    #pragma omp parallel for schedule(static)
    for (int64_t bc = 0; bc < batch * channels; ++bc) {
        const int64_t c = bc % channels;
        const float k = w[c] / std::sqrt(v[c] + static_cast<float>(eps));
        const float shift = b[c] - m[c] * k;
        for (int64_t i = 0; i < plane; ++i) {
            const float r = in[bc * plane + i] * k + shift;
            dst[bc * plane + i] = r > 0.f ? r : 0.f;
        }
    }
    return out;
}
'''

CORPUS_FUNCTIONS = ["relu_kernel", "relu_into", "relu_noop", "relu_partial", "relu_inplace",
                    "relu_half", "relu_cached", "relu_zero", "gelu_scale", "bn_relu"]
CORPUS_FLAGS = {"extra_cflags": ["-O2", "-fopenmp"], "extra_ldflags": ["-fopenmp"]}

ATEN_CPP = r'''
#include <torch/extension.h>

// Hands the work to PyTorch's own operator through the dispatcher.
torch::Tensor relu_aten(torch::Tensor x) { return at::relu(x); }
'''

_PLACEHOLDERS = {'"@CORPUS_CPP@"': CORPUS_CPP, '"@ATEN_CPP@"': ATEN_CPP}

HERE = Path(__file__).resolve().parent
EXPLOITS = HERE / "exploits"
HONEST = HERE / "honest"
TASKS = HERE.parent / "data" / "anticheat"


def render(text: str) -> str:
    """A corpus file's text with the kernel-source placeholders replaced by the sources."""
    for placeholder, source in _PLACEHOLDERS.items():
        text = text.replace(placeholder, repr(source))
    return text


def load(path: Path) -> str:
    """A rendered corpus file."""
    return render(path.read_text())
