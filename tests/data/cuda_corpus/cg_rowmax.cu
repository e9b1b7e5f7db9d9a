// torch::Tensor row_max(torch::Tensor x);
#include <torch/extension.h>
#include <cooperative_groups.h>
#include <cfloat>
namespace cg = cooperative_groups;
__global__ void row_max_kernel(const float* x, float* out, int cols) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    const float* row = x + (size_t)blockIdx.x * cols;
    float m = -FLT_MAX;
    for (int c = warp.thread_rank(); c < cols; c += warp.size()) m = fmaxf(m, row[c]);
    for (int offset = warp.size() / 2; offset > 0; offset /= 2) m = fmaxf(m, warp.shfl_down(m, offset));
    if (warp.thread_rank() == 0) out[blockIdx.x] = m;
}
torch::Tensor row_max(torch::Tensor x) {
    auto out = torch::empty({x.size(0)}, x.options());
    row_max_kernel<<<x.size(0), 32>>>(x.data_ptr<float>(), out.data_ptr<float>(), x.size(1));
    return out;
}
