// torch::Tensor silu_half(torch::Tensor x);
#include <torch/extension.h>
#include <cuda_fp16.h>
__global__ void silu_half_kernel(const __half* __restrict__ x, __half* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = __half2float(x[i]);
        y[i] = __float2half(v / (1.0f + __expf(-v)));
    }
}
torch::Tensor silu_half(torch::Tensor x) {
    TORCH_CHECK(x.scalar_type() == torch::kHalf, "x must be float16");
    auto y = torch::empty_like(x);
    int n = x.numel();
    silu_half_kernel<<<(n + 255) / 256, 256>>>(
        reinterpret_cast<const __half*>(x.data_ptr<at::Half>()),
        reinterpret_cast<__half*>(y.data_ptr<at::Half>()), n);
    return y;
}
