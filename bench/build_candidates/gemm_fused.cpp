// A larger CPU candidate: blocked GEMM + bias + GELU, and a 2-D convolution, with
// templates and OpenMP; two exported functions.
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace {
constexpr int64_t kBlockM = 64, kBlockN = 64, kBlockK = 128;

template <typename T>
inline T gelu(T v) {
    const T c = static_cast<T>(0.7978845608028654);
    return static_cast<T>(0.5) * v * (static_cast<T>(1) + std::tanh(c * (v + static_cast<T>(0.044715) * v * v * v)));
}

template <int64_t MR, int64_t NR>
inline void micro_kernel(const float* a, const float* b, float* c, int64_t lda, int64_t ldb,
                         int64_t ldc, int64_t k) {
    std::array<float, MR * NR> acc{};
    for (int64_t p = 0; p < k; ++p)
        for (int64_t i = 0; i < MR; ++i) {
            const float av = a[i * lda + p];
            for (int64_t j = 0; j < NR; ++j) acc[i * NR + j] += av * b[p * ldb + j];
        }
    for (int64_t i = 0; i < MR; ++i)
        for (int64_t j = 0; j < NR; ++j) c[i * ldc + j] += acc[i * NR + j];
}

void gemm_block(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k,
                int64_t lda, int64_t ldb, int64_t ldc) {
    int64_t i = 0;
    for (; i + 4 <= m; i += 4) {
        int64_t j = 0;
        for (; j + 8 <= n; j += 8) micro_kernel<4, 8>(a + i * lda, b + j, c + i * ldc + j, lda, ldb, ldc, k);
        for (; j < n; ++j)
            for (int64_t ii = i; ii < i + 4; ++ii)
                for (int64_t p = 0; p < k; ++p) c[ii * ldc + j] += a[ii * lda + p] * b[p * ldb + j];
    }
    for (; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
            for (int64_t p = 0; p < k; ++p) c[i * ldc + j] += a[i * lda + p] * b[p * ldb + j];
}
}  // namespace

torch::Tensor linear_gelu(torch::Tensor x, torch::Tensor w_t, torch::Tensor bias) {
    auto a = x.contiguous();
    auto b = w_t.contiguous();
    const int64_t m = a.size(0), k = a.size(1), n = b.size(1);
    auto out = torch::zeros({m, n}, a.options());
    const float* pa = a.data_ptr<float>();
    const float* pb = b.data_ptr<float>();
    float* pc = out.data_ptr<float>();
    #pragma omp parallel for collapse(2)
    for (int64_t i0 = 0; i0 < m; i0 += kBlockM)
        for (int64_t j0 = 0; j0 < n; j0 += kBlockN)
            for (int64_t p0 = 0; p0 < k; p0 += kBlockK)
                gemm_block(pa + i0 * k + p0, pb + p0 * n + j0, pc + i0 * n + j0,
                           std::min(kBlockM, m - i0), std::min(kBlockN, n - j0),
                           std::min(kBlockK, k - p0), k, n, n);
    const float* pbias = bias.data_ptr<float>();
    #pragma omp parallel for
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) pc[i * n + j] = gelu(pc[i * n + j] + pbias[j]);
    return out;
}

torch::Tensor conv2d_nchw(torch::Tensor input, torch::Tensor weight, int64_t stride, int64_t padding) {
    auto x = input.contiguous();
    auto w = weight.contiguous();
    const int64_t batch = x.size(0), cin = x.size(1), h = x.size(2), wd = x.size(3);
    const int64_t cout = w.size(0), kh = w.size(2), kw = w.size(3);
    const int64_t oh = (h + 2 * padding - kh) / stride + 1, ow = (wd + 2 * padding - kw) / stride + 1;
    auto out = torch::zeros({batch, cout, oh, ow}, x.options());
    const float* px = x.data_ptr<float>();
    const float* pw = w.data_ptr<float>();
    float* po = out.data_ptr<float>();
    #pragma omp parallel for collapse(2)
    for (int64_t nb = 0; nb < batch; ++nb)
        for (int64_t co = 0; co < cout; ++co)
            for (int64_t y = 0; y < oh; ++y)
                for (int64_t xo = 0; xo < ow; ++xo) {
                    float acc = 0.f;
                    for (int64_t ci = 0; ci < cin; ++ci)
                        for (int64_t ky = 0; ky < kh; ++ky) {
                            const int64_t iy = y * stride - padding + ky;
                            if (iy < 0 || iy >= h) continue;
                            for (int64_t kx = 0; kx < kw; ++kx) {
                                const int64_t ix = xo * stride - padding + kx;
                                if (ix < 0 || ix >= wd) continue;
                                acc += px[((nb * cin + ci) * h + iy) * wd + ix] *
                                       pw[((co * cin + ci) * kh + ky) * kw + kx];
                            }
                        }
                    po[((nb * cout + co) * oh + y) * ow + xo] = acc;
                }
    return out;
}
