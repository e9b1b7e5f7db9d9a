#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/cuda/CUDAException.h>
__inline__ __device__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}
__global__ void rowsum_kernel(torch::PackedTensorAccessor32<float, 2, torch::RestrictPtrTraits> x,
                              torch::PackedTensorAccessor32<float, 1, torch::RestrictPtrTraits> out) {
    const int row = blockIdx.x;
    float acc = 0.f;
    for (int c = threadIdx.x; c < x.size(1); c += 32) acc += x[row][c];
    acc = warp_sum(acc);
    if (threadIdx.x == 0) out[row] = acc;
}
torch::Tensor rowsum_cuda(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.dim() == 2, "x must be a 2-D CUDA tensor");
    auto out = torch::empty({x.size(0)}, x.options());
    auto stream = c10::cuda::getCurrentCUDAStream();
    rowsum_kernel<<<x.size(0), 32, 0, stream>>>(
        x.packed_accessor32<float, 2, torch::RestrictPtrTraits>(),
        out.packed_accessor32<float, 1, torch::RestrictPtrTraits>());
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}
