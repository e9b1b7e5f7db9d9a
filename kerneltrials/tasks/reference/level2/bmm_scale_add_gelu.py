"""Reference solution for L2/bmm_scale_add_gelu: C++ batched GEMM with a fused scale + bias + GELU
epilogue.
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
namespace gemm {

constexpr int64_t kRows = 4;      // rows of C per micro-tile
constexpr int64_t kCols = 8;      // columns of C per micro-tile (kept in registers)
constexpr int64_t kDepth = 256;   // K per pass, so the B panel stays in cache
constexpr int64_t kPanel = 512;   // columns of B per panel

// c[0:4, 0:8] += a[0:4, 0:depth] @ b[0:depth, 0:8]
inline void micro_tile(const float* a, int64_t lda, const float* b, int64_t ldb,
                       float* c, int64_t ldc, int64_t depth) {
    float acc[kRows][kCols] = {};
    for (int64_t k = 0; k < depth; ++k) {
        const float* brow = b + k * ldb;
        for (int64_t r = 0; r < kRows; ++r) {
            const float av = a[r * lda + k];
            for (int64_t j = 0; j < kCols; ++j) acc[r][j] += av * brow[j];
        }
    }
    for (int64_t r = 0; r < kRows; ++r)
        for (int64_t j = 0; j < kCols; ++j) c[r * ldc + j] += acc[r][j];
}

inline void edge_tile(const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
                      int64_t ldc, int64_t rows, int64_t cols, int64_t depth) {
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t k = 0; k < depth; ++k) {
            const float av = a[r * lda + k];
            for (int64_t j = 0; j < cols; ++j) c[r * ldc + j] += av * b[k * ldb + j];
        }
}

// One row tile of C += A @ B over all of N and K.
inline void row_tile(const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
                     int64_t ldc, int64_t rows, int64_t n, int64_t k) {
    for (int64_t p0 = 0; p0 < n; p0 += kPanel) {
        const int64_t p1 = std::min(n, p0 + kPanel);
        for (int64_t k0 = 0; k0 < k; k0 += kDepth) {
            const int64_t depth = std::min(kDepth, k - k0);
            for (int64_t j0 = p0; j0 < p1; j0 += kCols) {
                const int64_t cols = std::min(kCols, p1 - j0);
                if (rows == kRows && cols == kCols)
                    micro_tile(a + k0, lda, b + k0 * ldb + j0, ldb, c + j0, ldc, depth);
                else
                    edge_tile(a + k0, lda, b + k0 * ldb + j0, ldb, c + j0, ldc, rows, cols, depth);
            }
        }
    }
}

// C (m, n) += A (m, k) @ B (k, n); row-major with leading dimensions; OpenMP over row tiles
// (inside an enclosing parallel region it runs on the calling thread).
inline void gemm_acc(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                     const float* b, int64_t ldb, float* c, int64_t ldc) {
    const int64_t tiles = (m + kRows - 1) / kRows;
    #pragma omp parallel for schedule(dynamic, 4)
    for (int64_t t = 0; t < tiles; ++t) {
        const int64_t i0 = t * kRows;
        row_tile(a + i0 * lda, lda, b, ldb, c + i0 * ldc, ldc, std::min(kRows, m - i0), n, k);
    }
}

// (rows, cols) -> (cols, rows), in cache-sized blocks.
inline void transpose(const float* src, float* dst, int64_t rows, int64_t cols) {
    constexpr int64_t kBlock = 32;
    #pragma omp parallel for schedule(static)
    for (int64_t r0 = 0; r0 < rows; r0 += kBlock)
        for (int64_t c0 = 0; c0 < cols; c0 += kBlock)
            for (int64_t r = r0; r < std::min(rows, r0 + kBlock); ++r)
                for (int64_t c = c0; c < std::min(cols, c0 + kBlock); ++c)
                    dst[c * rows + r] = src[r * cols + c];
}

// out (m, n) = x (m, k) @ w (n, k)^T + bias (n) (bias may be null): nn.Linear.
inline void linear(const float* x, const float* w, const float* bias, float* out,
                   int64_t m, int64_t n, int64_t k) {
    std::vector<float> wt(static_cast<size_t>(k * n));
    transpose(w, wt.data(), n, k);  // (k, n): the inner loop runs over contiguous outputs
    #pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) out[i * n + j] = bias ? bias[j] : 0.f;
    gemm_acc(m, n, k, x, k, wt.data(), n, out, n);
}

}  // namespace gemm

static inline float gelu(float v) { return 0.5f * v * (1.f + std::erf(v * 0.70710678118654752f)); }
static inline float sigmoid(float v) { return 1.f / (1.f + std::exp(-v)); }
static inline float silu(float v) { return v / (1.f + std::exp(-v)); }

torch::Tensor bmm_scale_add_gelu(torch::Tensor a, torch::Tensor b, torch::Tensor bias) {
    CHECK_F32(a); CHECK_F32(b); CHECK_F32(bias);
    const int64_t batch = a.size(0), m = a.size(1), k = a.size(2), n = b.size(2);
    auto out = torch::zeros({batch, m, n}, a.options());  // accumulated into
    float* o = out.data_ptr<float>();
    const float* ap = a.data_ptr<float>();
    const float* bp = b.data_ptr<float>();
    const float* biasp = bias.data_ptr<float>();
    for (int64_t p = 0; p < batch; ++p)
        gemm::gemm_acc(m, n, k, ap + p * m * k, k, bp + p * k * n, n, o + p * m * n, n);
    const float scale = 1.f / std::sqrt(static_cast<float>(k));
    const int64_t total = batch * m * n;
    #pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < total; ++i) o[i] = gelu(o[i] * scale + biasp[i]);
    return out;
}
"""

kernels = load_inline(
    name="kt_ref_bmm_scale_add_gelu",
    cpp_sources=[cpp_source],
    functions=["bmm_scale_add_gelu"],
    extra_cflags=["-O3", "-fopenmp"],
    extra_ldflags=["-fopenmp"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return kernels.bmm_scale_add_gelu(a.contiguous(), b.contiguous(), bias.contiguous())
