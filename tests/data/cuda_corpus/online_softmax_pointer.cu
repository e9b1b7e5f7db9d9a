// torch::Tensor softmax(torch::Tensor x);
#include <torch/extension.h>
#include <c10/cuda/CUDAException.h>
#include <cfloat>
__device__ __forceinline__ float warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}
__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
__global__ void __launch_bounds__(32) softmax_warp_kernel(const float* __restrict__ x, float* __restrict__ y, int cols) {
    const float* row = x + (int64_t)blockIdx.x * cols;
    float m = -FLT_MAX, s = 0.f;
    for (int c = threadIdx.x; c < cols; c += 32) {
        float v = row[c], nm = fmaxf(m, v);
        s = s * __expf(m - nm) + __expf(v - nm);
        m = nm;
    }
    float gm = warp_max(m);
    s = warp_sum(s * __expf(m - gm));
    for (int c = threadIdx.x; c < cols; c += 32) y[(int64_t)blockIdx.x * cols + c] = __expf(row[c] - gm) / s;
}
torch::Tensor softmax(torch::Tensor x) {
    auto y = torch::empty_like(x);
    auto kernel = softmax_warp_kernel;  // launched through a function pointer
    kernel<<<x.size(0), 32, 0, 0>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.size(1));
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
