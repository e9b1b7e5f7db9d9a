// A larger CUDA candidate: shared-memory tiled GEMM with bias + ReLU epilogue.
#define TILE 32
__global__ void matmul_bias_relu(const float* __restrict__ a, const float* __restrict__ b,
                                 const float* __restrict__ bias, float* __restrict__ c,
                                 int m, int n, int k) {
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE + 1];
    const int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.f;
    for (int t = 0; t < (k + TILE - 1) / TILE; ++t) {
        const int ka = t * TILE + threadIdx.x, kb = t * TILE + threadIdx.y;
        as[threadIdx.y][threadIdx.x] = (row < m && ka < k) ? a[(int64_t)row * k + ka] : 0.f;
        bs[threadIdx.y][threadIdx.x] = (kb < k && col < n) ? b[(int64_t)kb * n + col] : 0.f;
        __syncthreads();
        #pragma unroll
        for (int p = 0; p < TILE; ++p) acc += as[threadIdx.y][p] * bs[p][threadIdx.x];
        __syncthreads();
    }
    if (row < m && col < n) c[(int64_t)row * n + col] = fmaxf(acc + bias[col], 0.f);
}
torch::Tensor matmul_bias_relu_cuda(torch::Tensor a, torch::Tensor b, torch::Tensor bias) {
    TORCH_CHECK(a.is_cuda() && b.is_cuda(), "inputs must be CUDA tensors");
    const int m = a.size(0), k = a.size(1), n = b.size(1);
    auto c = torch::empty({m, n}, a.options());
    dim3 block(TILE, TILE), grid((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
    matmul_bias_relu<<<grid, block>>>(a.data_ptr<float>(), b.data_ptr<float>(), bias.data_ptr<float>(),
                                      c.data_ptr<float>(), m, n, k);
    return c;
}
