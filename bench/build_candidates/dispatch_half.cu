#include <torch/extension.h>
namespace scaled {
constexpr int kBlock = 256;
__device__ __forceinline__ float load(float v) { return v; }
__device__ __forceinline__ float load(double v) { return static_cast<float>(v); }
__device__ __forceinline__ float load(c10::Half v) { return static_cast<float>(v); }
template <typename scalar_t>
__global__ void __launch_bounds__(kBlock) gelu_scale_kernel(const scalar_t* __restrict__ x,
                                                            scalar_t* __restrict__ y, float alpha, int64_t n) {
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) {
        const float v = load(x[i]);
        const float g = 0.5f * v * (1.f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
        y[i] = static_cast<scalar_t>(alpha * g);
    }
}
}  // namespace scaled
torch::Tensor gelu_scale_cuda(torch::Tensor x, double alpha) {
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    auto y = torch::empty_like(x);
    const int64_t n = x.numel();
    const int blocks = (int)((n + scaled::kBlock - 1) / scaled::kBlock);
    AT_DISPATCH_FLOATING_TYPES_AND_HALF(x.scalar_type(), "gelu_scale", [&] {
        scaled::gelu_scale_kernel<scalar_t><<<blocks, scaled::kBlock>>>(
            x.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), static_cast<float>(alpha), n);
    });
    return y;
}
