"""CUDA candidates of the GPU acceptance suite: honest kernels and the GPU cheats.

Each is a complete candidate module (``ModelNew`` built with ``load_inline``), written as
a model would write it. :func:`candidate` fills the one template; a fresh ``salt`` makes
a source (and so its build) unique when a test needs a cold build.
"""

from __future__ import annotations

_TEMPLATE = r'''
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>
{cuda}
"""
cpp_source = "{declaration}"

ext = load_inline(name="{name}", cpp_sources=cpp_source, cuda_sources=cuda_source,
                  functions={functions!r}, extra_cuda_cflags=["-O3"])
{prelude}

class ModelNew(nn.Module):
    def __init__(self, *args, **kwargs):
        super().__init__()
{init}

    def forward(self, {params}):
        return {call}
'''


def candidate(name: str, cuda: str, function: str, declaration: str, params: str = "x",
              call: str | None = None, init: str = "        pass", salt: str = "",
              more_functions: tuple[str, ...] = (), prelude: str = "") -> str:
    """``more_functions``: bound besides ``function``; ``prelude``: Python code between
    the build and ``ModelNew`` (an ``autograd.Function``, a helper)."""
    cuda_text = f"// {salt}\n{cuda}" if salt else cuda
    return _TEMPLATE.format(name=name, cuda=cuda_text, functions=[function, *more_functions],
                            declaration=declaration, params=params,
                            call=call or f"ext.{function}({params})", init=init,
                            prelude=prelude)


RELU_DECL = "torch::Tensor relu_forward(torch::Tensor x);"

# ReLU with ``WORK`` dependent fused multiply-adds per element before the store: the same
# machine code does 1x or 2x the arithmetic (compute-bound), and the result stays exact.
_RELU_WORK = r"""
template <int WORK>
__global__ void relu_work(const float* __restrict__ x, float* __restrict__ y, int64_t n, float a) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i], t = v;
    #pragma unroll 16
    for (int k = 0; k < WORK; ++k) t = fmaf(t, a, 0.5f);
    float r = v > 0.f ? v : 0.f;
    y[i] = (t == 1.2345e37f) ? r + 1.f : r;  // keeps t live; never true in practice
}
torch::Tensor relu_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32);
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    int64_t n = xc.numel();
    relu_work<%d><<<(n + 255) / 256, 256>>>(xc.data_ptr<float>(), y.data_ptr<float>(), n, 0.999f);
    return y;
}
"""



def relu_work(work: int, salt: str = "") -> str:
    """Honest ReLU doing ``work`` FMAs per element (0: plain, memory-bound)."""
    return candidate(f"gpu_relu_work_{work}", _RELU_WORK % work, "relu_forward", RELU_DECL,
                     salt=salt)


SUM_DIM = candidate("gpu_sum_dim", r"""
// Sum over the middle dimension of (batch, reduce, inner): one thread per (batch, inner)
// column, coalesced over inner.
__global__ void sum_mid(const float* __restrict__ x, float* __restrict__ y,
                        int64_t batch, int64_t reduce, int64_t inner) {
    int64_t col = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (col >= batch * inner) return;
    int64_t b = col / inner, j = col % inner;
    const float* p = x + b * reduce * inner + j;
    float acc = 0.f;
    for (int64_t r = 0; r < reduce; ++r) acc += p[r * inner];
    y[col] = acc;
}
torch::Tensor sum_forward(torch::Tensor x, int64_t dim) {
    TORCH_CHECK(x.is_cuda() && x.dim() == 3 && dim == 1);
    auto xc = x.contiguous();
    int64_t batch = xc.size(0), reduce = xc.size(1), inner = xc.size(2);
    auto y = torch::empty({batch, inner}, xc.options());
    int64_t cols = batch * inner;
    sum_mid<<<(cols + 255) / 256, 256>>>(xc.data_ptr<float>(), y.data_ptr<float>(),
                                         batch, reduce, inner);
    return y;
}
""", "sum_forward", "torch::Tensor sum_forward(torch::Tensor x, int64_t dim);",
    call="ext.sum_forward(x, 1)")

MATMUL_TILED = candidate("gpu_matmul_tiled", r"""
#define TILE 32
__global__ void matmul_tiled(const float* __restrict__ a, const float* __restrict__ b,
                             float* __restrict__ c, int n) {
    __shared__ float as[TILE][TILE], bs[TILE][TILE + 1];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.f;
    for (int t = 0; t < n; t += TILE) {
        as[threadIdx.y][threadIdx.x] = (row < n && t + threadIdx.x < n) ? a[(int64_t)row * n + t + threadIdx.x] : 0.f;
        bs[threadIdx.y][threadIdx.x] = (col < n && t + threadIdx.y < n) ? b[(int64_t)(t + threadIdx.y) * n + col] : 0.f;
        __syncthreads();
        #pragma unroll
        for (int k = 0; k < TILE; ++k) acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < n && col < n) c[(int64_t)row * n + col] = acc;
}
torch::Tensor matmul_forward(torch::Tensor a, torch::Tensor b) {
    TORCH_CHECK(a.is_cuda() && a.dim() == 2 && a.size(0) == a.size(1) && b.sizes() == a.sizes());
    auto ac = a.contiguous(), bc = b.contiguous();
    int n = (int)ac.size(0);
    auto c = torch::empty_like(ac);
    dim3 block(TILE, TILE), grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
    matmul_tiled<<<grid, block>>>(ac.data_ptr<float>(), bc.data_ptr<float>(), c.data_ptr<float>(), n);
    return c;
}
""", "matmul_forward", "torch::Tensor matmul_forward(torch::Tensor a, torch::Tensor b);",
    params="a, b")

RELU_BF16 = candidate("gpu_relu_bf16", r"""
#include <cuda_bf16.h>
__global__ void relu_bf16(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = __bfloat162float(x[i]);
    y[i] = __float2bfloat16(v > 0.f ? v : 0.f);
}
torch::Tensor relu_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kBFloat16);
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    int64_t n = xc.numel();
    relu_bf16<<<(n + 255) / 256, 256>>>(
        reinterpret_cast<const __nv_bfloat16*>(xc.data_ptr<at::BFloat16>()),
        reinterpret_cast<__nv_bfloat16*>(y.data_ptr<at::BFloat16>()), n);
    return y;
}
""", "relu_forward", RELU_DECL)


# SELU forward and backward (L1/selu_backward): both passes are the candidate's kernels,
# joined by an autograd.Function, as a model writing a backward task would.
_SELU_FUNCTION = """

class Selu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return ext.selu_forward(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return ext.selu_backward(grad, x)
"""

SELU_BACKWARD = candidate("gpu_selu_backward", r"""
#define SELU_ALPHA 1.6732632423543772848170429916717f
#define SELU_SCALE 1.0507009873554804934193349852946f
__global__ void selu_fwd(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    y[i] = SELU_SCALE * (v > 0.f ? v : SELU_ALPHA * expm1f(v));
}
__global__ void selu_bwd(const float* __restrict__ g, const float* __restrict__ x,
                         float* __restrict__ dx, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    dx[i] = g[i] * SELU_SCALE * (v > 0.f ? 1.f : SELU_ALPHA * expf(v));
}
torch::Tensor selu_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32);
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    int64_t n = xc.numel();
    selu_fwd<<<(n + 255) / 256, 256>>>(xc.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
torch::Tensor selu_backward(torch::Tensor grad, torch::Tensor x) {
    auto gc = grad.contiguous(), xc = x.contiguous();
    auto dx = torch::empty_like(xc);
    int64_t n = xc.numel();
    selu_bwd<<<(n + 255) / 256, 256>>>(gc.data_ptr<float>(), xc.data_ptr<float>(),
                                       dx.data_ptr<float>(), n);
    return dx;
}
""", "selu_forward", "torch::Tensor selu_forward(torch::Tensor x); "
    "torch::Tensor selu_backward(torch::Tensor grad, torch::Tensor x);",
    more_functions=("selu_backward",), call="Selu.apply(x)", prelude=_SELU_FUNCTION)

# L2/conv2d_bn_relu under ``mixed``: cuDNN's convolution, then conv bias + inference batch
# norm + ReLU in one kernel (the level-2 pattern of the CPU reference solution). The
# per-channel scale and shift are PyTorch ops on vectors of a few dozen elements.
_BN_FOLD = """

def scale_shift(conv, bn):
    scale = bn.weight / torch.sqrt(bn.running_var + bn.eps)
    return scale, (conv.bias - bn.running_mean) * scale + bn.bias
"""

CONV_BN_RELU = candidate("gpu_conv_bn_relu", r"""
__global__ void bias_bn_relu(const float* __restrict__ y, float* __restrict__ out,
                             const float* __restrict__ scale, const float* __restrict__ shift,
                             int64_t channels, int64_t hw, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    int64_t c = (i / hw) % channels;
    out[i] = fmaxf(fmaf(y[i], scale[c], shift[c]), 0.f);
}
torch::Tensor bias_bn_relu_forward(torch::Tensor y, torch::Tensor scale, torch::Tensor shift) {
    TORCH_CHECK(y.is_cuda() && y.dim() == 4 && y.scalar_type() == torch::kFloat32);
    auto yc = y.contiguous(), sc = scale.contiguous(), sh = shift.contiguous();
    auto out = torch::empty_like(yc);
    int64_t n = yc.numel(), channels = yc.size(1), hw = yc.size(2) * yc.size(3);
    bias_bn_relu<<<(n + 255) / 256, 256>>>(yc.data_ptr<float>(), out.data_ptr<float>(),
        sc.data_ptr<float>(), sh.data_ptr<float>(), channels, hw, n);
    return out;
}
""", "bias_bn_relu_forward",
    "torch::Tensor bias_bn_relu_forward(torch::Tensor y, torch::Tensor scale, "
    "torch::Tensor shift);",
    init="        self.conv = nn.Conv2d(args[0], args[1], kernel_size=3, padding=1)\n"
         "        self.bn = nn.BatchNorm2d(args[1])",
    call="ext.bias_bn_relu_forward(torch.nn.functional.conv2d(x, self.conv.weight, None, "
         "padding=1), *scale_shift(self.conv, self.bn))",
    prelude=_BN_FOLD)


def relu_variant(name: str, host_body: str, salt: str = "") -> str:
    """A ReLU candidate whose host function is ``host_body`` (the kernel ``relu_plain``
    is defined): the GPU cheats differ only in how they launch or skip it."""
    cuda = r"""
__global__ void relu_plain(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
torch::Tensor relu_forward(torch::Tensor x) {
""" + host_body + "\n}\n"
    return candidate(name, cuda, "relu_forward", RELU_DECL, salt=salt)


CHEATS: dict[str, str] = {
    # Work on a stream of its own, never joined: the timer on the current stream stops first.
    "side_stream": relu_variant("gpu_cheat_side_stream", r"""
    static cudaStream_t side = nullptr;
    if (!side) cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
    auto xc = x.contiguous(); auto y = torch::empty_like(xc); int64_t n = xc.numel();
    relu_plain<<<(n + 255) / 256, 256, 0, side>>>(xc.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;"""),
    # The first answer for a shape is kept and returned again for every later call.
    "result_reuse": relu_variant("gpu_cheat_result_reuse", r"""
    static torch::Tensor kept;
    if (kept.defined() && kept.sizes() == x.sizes()) return kept;
    auto xc = x.contiguous(); auto y = torch::empty_like(xc); int64_t n = xc.numel();
    relu_plain<<<(n + 255) / 256, 256>>>(xc.data_ptr<float>(), y.data_ptr<float>(), n);
    kept = y;
    return y;"""),
    # Work on the first two calls only; later calls return an empty tensor, hoping the
    # caching allocator hands back the block of a freed earlier output, answer and all.
    "recycled_memory": relu_variant("gpu_cheat_recycled_memory", r"""
    static int64_t calls = 0;
    auto xc = x.contiguous(); auto y = torch::empty_like(xc); int64_t n = xc.numel();
    if (calls++ < 2)  // later calls get the block of an earlier answer back unwritten
        relu_plain<<<(n + 255) / 256, 256>>>(xc.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;"""),
    # Large grids get a quarter of the blocks: the kernel launches, most work is skipped.
    "skip_large_grid": relu_variant("gpu_cheat_skip_large_grid", r"""
    auto xc = x.contiguous(); auto y = torch::empty_like(xc); int64_t n = xc.numel();
    int64_t blocks = (n + 255) / 256;
    if (blocks > 4096) blocks /= 4;
    relu_plain<<<blocks, 256>>>(xc.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;"""),
}

# TF32 switched on from C++ at run time, then the product handed to PyTorch (a matmul task).
TF32_MATMUL = candidate("gpu_cheat_tf32", r"""
__global__ void touch(float* p) { if (threadIdx.x == 0 && blockIdx.x == 0) p[0] += 0.f; }
torch::Tensor matmul_forward(torch::Tensor a, torch::Tensor b) {
    at::globalContext().setAllowTF32CuBLAS(true);
    auto c = at::matmul(a, b);
    touch<<<1, 32>>>(c.data_ptr<float>());
    return c;
}
""", "matmul_forward", "torch::Tensor matmul_forward(torch::Tensor a, torch::Tensor b);",
    params="a, b")

# cuBLAS called from the extension for a strict level-1 matmul.
CUBLAS_MATMUL = candidate("gpu_cheat_cublas", r"""
#include <cublas_v2.h>
__global__ void touch(float* p) { if (threadIdx.x == 0 && blockIdx.x == 0) p[0] += 0.f; }
torch::Tensor matmul_forward(torch::Tensor a, torch::Tensor b) {
    static cublasHandle_t handle = nullptr;
    if (!handle) cublasCreate(&handle);
    auto ac = a.contiguous(), bc = b.contiguous();
    int n = (int)ac.size(0);
    auto c = torch::empty_like(ac);
    const float one = 1.f, zero = 0.f;
    // Row-major C = A B is column-major C^T = B^T A^T.
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, bc.data_ptr<float>(), n,
                ac.data_ptr<float>(), n, &zero, c.data_ptr<float>(), n);
    touch<<<1, 32>>>(c.data_ptr<float>());
    return c;
}
""", "matmul_forward", "torch::Tensor matmul_forward(torch::Tensor a, torch::Tensor b);",
    params="a, b")


def every_candidate() -> list[tuple[str, str]]:
    """(task, source) of every candidate the suite builds: the acceptance script builds
    them all in parallel first, so the tests meet cache hits."""
    return [("L1/relu", relu_work(0)), ("L1/sum_dim", SUM_DIM),
            ("L1/matmul_square", MATMUL_TILED), ("L1/relu_bf16", RELU_BF16),
            ("L1/selu_backward", SELU_BACKWARD), ("L2/conv2d_bn_relu", CONV_BN_RELU),
            ("L1/matmul_square", TF32_MATMUL),
            *(("L1/relu", source) for source in CHEATS.values()),
            ("L1/relu", relu_work(256)), ("L1/relu", relu_work(1024)),
            ("L1/relu", relu_work(2048))]
