"""Splitting a CUDA source into a host unit and a device unit (text only, no compiler)."""

from __future__ import annotations

import pytest

from kerneltrials.verifier.builds.cuda._split import (
    SplitUnavailable,
    device_unit,
    mask_source,
    rewrite_launches,
    split_cuda_source,
)
from kerneltrials.verifier.builds.cuda._units import (
    _host_defines,
    check_resolved,
    template_instantiations,
)

SOURCE = r'''
#include <torch/extension.h>
#include <cuda_fp16.h>
#define CHECK(x) TORCH_CHECK((x).is_contiguous(), \
                             #x " must be contiguous")
namespace ops {
constexpr int kBlock = 128;  // used on both sides
__device__ __forceinline__ float square(float v) { return v * v; }
__host__ __device__ int ceil_div(int a, int b) { return (a + b - 1) / b; }
template <typename T>
__global__ void __launch_bounds__(kBlock) sq_kernel(const T* x, T* y, int n) {
    const char* note = "a { brace in a string";
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = square(x[i]);  // } in a comment
}
}  // namespace ops
extern "C" __global__ void fill_kernel(float* y, float v, int n) { if (threadIdx.x < n) y[threadIdx.x] = v; }
torch::Tensor sq(torch::Tensor x) {
    CHECK(x);
    auto y = torch::empty_like(x);
    int n = x.numel();
    ops::sq_kernel<float><<<ops::ceil_div(n, ops::kBlock), ops::kBlock>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), n);
    fill_kernel<<<1, 32, 0, 0>>>(y.data_ptr<float>(), 0.f, 0);
    return y;
}
'''


@pytest.mark.timeout(10)
def test_masking_blanks_comments_literals_and_directives_in_place() -> None:
    text = 'int a; // {\nconst char* s = "}{";\n#define X { \\\n  }\nchar c = \'{\';'
    masked = mask_source(text)
    assert len(masked) == len(text) and masked.count("\n") == text.count("\n")
    assert "{" not in masked and "}" not in masked
    assert masked.startswith("int a;") and '"  "' in masked


@pytest.mark.timeout(10)
def test_host_unit_declares_kernels_and_keeps_host_code_only() -> None:
    split = split_cuda_source(SOURCE)
    assert [(k.qualified, k.is_template) for k in split.kernels] == [
        ("ops::sq_kernel", True), ("fill_kernel", False)]
    host = split.host
    assert "__launch_bounds__" not in host and "blockIdx" not in host and "square" not in host
    assert "sq_kernel(const T* x, T* y, int n);" in host
    assert 'extern "C" __global__ void fill_kernel(float* y, float v, int n);' in host
    assert "torch::Tensor sq(torch::Tensor x) {" in host and "constexpr int kBlock = 128;" in host
    # a non-inline __host__ __device__ function is defined once, by the device unit
    assert "int ceil_div(int a, int b);" in host and split.declared_elsewhere == ["ceil_div"]


@pytest.mark.timeout(10)
def test_launches_are_rewritten_as_cudafe_writes_them() -> None:
    host = split_cuda_source(SOURCE).host
    assert ("((__cudaPushCallConfiguration(ops::ceil_div(n, ops::kBlock), ops::kBlock)) ? (void)0 : "
            "ops::sq_kernel<float>(") in host
    assert ("((__cudaPushCallConfiguration(1, 32, 0, 0)) ? (void)0 : "
            "fill_kernel(y.data_ptr<float>(), 0.f, 0))") in host
    assert "<<<" not in host


@pytest.mark.timeout(10)
def test_launch_rewrite_keeps_line_numbers() -> None:
    text = "void f() {\n  k<<<g,\n b>>>(a,\n c);\n  int after;\n}"
    out = rewrite_launches(text)
    assert out.count("\n") == text.count("\n")
    assert out.splitlines()[4] == "  int after;"


@pytest.mark.timeout(10)
def test_device_unit_has_no_torch_headers_and_no_host_functions() -> None:
    split = split_cuda_source(SOURCE)
    device = device_unit(split, [])
    assert "torch/extension.h" not in device and "torch::Tensor sq" not in device
    assert "#include <cuda_fp16.h>" in device and "#define CHECK(x)" in device
    assert "square(x[i])" in device and "ceil_div(int a, int b) {" in device
    assert "c10/util/Half.h" not in device  # the kernels name nothing of torch


@pytest.mark.timeout(10)
def test_device_unit_gets_the_torch_subset_when_kernels_name_torch_types() -> None:
    split = split_cuda_source(SOURCE)
    device = device_unit(split, ["void ops::sq_kernel<c10::Half>(c10::Half const*, c10::Half*, int)"])
    assert device.index("#include <c10/util/Half.h>") < device.index("namespace ops")
    assert device.rstrip().endswith(
        "template __global__ void ops::sq_kernel<c10::Half>(c10::Half const*, c10::Half*, int);")
    assert "TensorAccessor.h" not in device


@pytest.mark.timeout(10)
@pytest.mark.parametrize("source, why", [
    ("static __global__ void k(int* p) {}\nvoid f(int* p) { k<<<1,1>>>(p); }", "internal linkage"),
    ("namespace { __global__ void k(int* p) {} }\nvoid f(int* p) { k<<<1,1>>>(p); }", "internal linkage"),
    ("__constant__ float coeffs[4];\n__global__ void k(float* p) { p[0] = coeffs[0]; }\n"
     "void f(float* p, float* c) { cudaMemcpyToSymbol(coeffs, c, 16); k<<<1,1>>>(p); }", "coeffs"),
    ("__global__ void k(int* p) {}\nvoid f(int* p, void (*fn)(int*)) { (*fn)<<<1,1>>>(p); }", "launch"),
    ("int f() { return 1; }", "no __global__"),
    ("__global__ void k(int* p) { if (p) {", "unbalanced"),
])
def test_what_the_split_cannot_take_is_refused_with_a_reason(source: str, why: str) -> None:
    with pytest.raises(SplitUnavailable, match=why):
        split_cuda_source(source)


@pytest.mark.timeout(10)
def test_template_instantiations_come_from_the_host_units_undefined_symbols() -> None:
    split = split_cuda_source(SOURCE)
    demangled = {
        "_ZN3ops9sq_kernelIfEEvPKT_PS1_i": "void ops::sq_kernel<float>(float const*, float*, int)",
        "fill_kernel": "fill_kernel",
        "_ZN2at6detail10empty_likeE": "at::detail::empty_like(at::Tensor const&)",
    }
    assert template_instantiations(split, demangled) == [
        "void ops::sq_kernel<float>(float const*, float*, int)"]
    lambda_arg = {"x": "void ops::sq_kernel<sq(at::Tensor)::{lambda()#1}>(int)"}
    with pytest.raises(SplitUnavailable, match="instantiate"):
        template_instantiations(split, lambda_arg)


@pytest.mark.timeout(10)
def test_a_kernel_the_device_unit_does_not_export_is_caught_before_linking() -> None:
    split = split_cuda_source(SOURCE)
    demangled = {"_Z8ceil_divii": "ceil_div(int, int)", "_ZN3ops9sq_kernelIfEEvPKT_PS1_i":
                 "void ops::sq_kernel<float>(float const*, float*, int)"}
    check_resolved(split, demangled, defined=set(demangled))
    with pytest.raises(SplitUnavailable, match="ceil_div"):
        check_resolved(split, demangled, defined={"_ZN3ops9sq_kernelIfEEvPKT_PS1_i"})
    with pytest.raises(SplitUnavailable, match="fill_kernel"):  # C linkage: not mangled
        check_resolved(split, {"fill_kernel": "fill_kernel"}, defined=set())


@pytest.mark.timeout(10)
def test_nvcc_defines_reach_the_host_unit_once() -> None:
    defines = _host_defines(["-DTILE=32", "-D", "FAST", "-UNDEBUG", "-O3", "-DSAME"], ["-DSAME"])
    assert defines == "#define TILE 32\n#define FAST 1\n#undef NDEBUG\n"


@pytest.mark.timeout(10)
def test_split_can_be_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    from kerneltrials.verifier.builds.cuda._units import is_split_enabled

    monkeypatch.delenv("KERNELTRIALS_CUDA_SPLIT", raising=False)
    assert is_split_enabled()
    monkeypatch.setenv("KERNELTRIALS_CUDA_SPLIT", "0")
    assert not is_split_enabled()


@pytest.mark.timeout(10)
def test_device_only_namespaces_stay_out_of_the_host_unit() -> None:
    source = ("#include <cooperative_groups.h>\n#include <mma.h>\n"
              "namespace cg = cooperative_groups;\nusing namespace nvcuda;\nusing namespace std;\n"
              "__global__ void k(float* p) { cg::this_thread_block().sync(); }\n"
              "void f(float* p) { k<<<1, 32>>>(p); }\n")
    split = split_cuda_source(source)
    assert "cooperative_groups;" not in split.host and "nvcuda" not in split.host
    assert "using namespace std;" in split.host
    device = device_unit(split, [])
    assert "namespace cg = cooperative_groups;" in device and "using namespace nvcuda;" in device


@pytest.mark.timeout(10)
def test_types_with_device_members_are_on_both_sides() -> None:
    source = ("struct ScaleOp { float s; __device__ float operator()(float v) const { return v * s; } };\n"
              "__constant__ float table[2] = {1.f, 2.f};\n"
              "template <typename Op> __global__ void k(float* p, Op op) { p[0] = op(table[0]); }\n"
              "void f(float* p) { k<<<1, 1>>>(p, ScaleOp{2.f}); }\n")
    split = split_cuda_source(source)
    assert "struct ScaleOp" in split.host and "struct ScaleOp" in split.device
    assert "table" not in split.host and "__constant__ float table[2] = {1.f, 2.f};" in split.device


@pytest.mark.timeout(10)
def test_the_verdict_names_how_each_library_was_built() -> None:
    from kerneltrials.verifier.builds._jobs import describe_build

    assert describe_build({}, cache_hit=True) == "cached"
    assert describe_build({"path": "stock"}) == "stock"
    assert describe_build({"path": "fast", "cuda_units": "split"}) == "fast+split"
    why = "whole: SplitUnavailable: a kernel with internal linkage"
    assert describe_build({"path": "fast", "cuda_units": why}) == \
        "fast+whole (SplitUnavailable: a kernel with internal linkage)"
