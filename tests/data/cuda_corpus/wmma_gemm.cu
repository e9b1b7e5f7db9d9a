// torch::Tensor wmma_gemm(torch::Tensor a, torch::Tensor b);
#include <torch/extension.h>
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;
__global__ void wmma_gemm_kernel(const half* a, const half* b, float* c, int M, int N, int K) {
    int tile_m = blockIdx.y, tile_n = blockIdx.x;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.f);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(fa, a + tile_m * 16 * K + k, K);
        wmma::load_matrix_sync(fb, b + k * N + tile_n * 16, N);
        wmma::mma_sync(fc, fa, fb, fc);
    }
    wmma::store_matrix_sync(c + tile_m * 16 * N + tile_n * 16, fc, N, wmma::mem_row_major);
}
torch::Tensor wmma_gemm(torch::Tensor a, torch::Tensor b) {
    const int M = a.size(0), K = a.size(1), N = b.size(1);
    auto c = torch::empty({M, N}, a.options().dtype(torch::kFloat32));
    wmma_gemm_kernel<<<dim3(N / 16, M / 16), 32>>>(
        reinterpret_cast<const half*>(a.data_ptr<at::Half>()),
        reinterpret_cast<const half*>(b.data_ptr<at::Half>()), c.data_ptr<float>(), M, N, K);
    return c;
}
