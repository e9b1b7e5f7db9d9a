"""Native cheat (memoising by input content): fingerprints a few sampled input values and,
when they match inputs it has seen, returns a copy of the output it computed then.

Timed calls used to run on copies of three pool input sets, so after the first call on
each set every timed call was a lookup (an O(n^2) copy instead of an O(n^3) product).
The match is deliberately loose (each sampled value within -15%/+18% of a remembered one,
same sign), so inputs scaled element-wise by a few percent still read as "seen": with fresh
inputs per timed call it answers with a stale output, which the reads catch.
"""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <vector>

namespace {
constexpr int kSamples = 64;

struct Entry {
    std::vector<int64_t> shape;
    std::vector<float> a_samples, b_samples;
    torch::Tensor output;
};
std::vector<Entry> cache;
size_t next_slot = 0;

std::vector<float> samples(const torch::Tensor& x) {
    const float* data = x.data_ptr<float>();
    int64_t n = x.numel();
    std::vector<float> picked(kSamples);
    for (int k = 0; k < kSamples; ++k) picked[k] = data[(n - 1) * k / (kSamples - 1)];
    return picked;
}

bool near(const std::vector<float>& seen, const std::vector<float>& now) {
    for (int k = 0; k < kSamples; ++k) {
        if (seen[k] == 0.f) { if (now[k] != 0.f) return false; continue; }
        float ratio = now[k] / seen[k];
        if (ratio < 0.85f || ratio > 1.18f) return false;
    }
    return true;
}
}  // namespace

torch::Tensor matmul_memo(torch::Tensor a, torch::Tensor b) {
    a = a.contiguous();
    b = b.contiguous();
    auto a_now = samples(a), b_now = samples(b);
    for (const Entry& entry : cache) {
        if (entry.shape == a.sizes().vec() && near(entry.a_samples, a_now)
                && near(entry.b_samples, b_now)) {
            return entry.output.clone();  // "seen it": no product at all
        }
    }
    int64_t n = a.size(0), k_dim = a.size(1), m = b.size(1);
    auto out = torch::zeros({n, m}, a.options());
    const float* pa = a.data_ptr<float>();
    const float* pb = b.data_ptr<float>();
    float* po = out.data_ptr<float>();
    for (int64_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < k_dim; ++k) {
            float scale = pa[i * k_dim + k];
            for (int64_t j = 0; j < m; ++j) po[i * m + j] += scale * pb[k * m + j];
        }
    Entry entry{a.sizes().vec(), a_now, b_now, out.clone()};
    if (cache.size() < 16) {
        cache.push_back(entry);
    } else {
        cache[next_slot++ % cache.size()] = entry;  // the most recent inputs are kept
    }
    return out;
}
"""

ext = load_inline(name="kt_matmul_memo_by_content", cpp_sources=[SOURCE],
                  functions=["matmul_memo"], extra_cflags=["-O3", "-march=native"])


class ModelNew(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return ext.matmul_memo(a, b)
