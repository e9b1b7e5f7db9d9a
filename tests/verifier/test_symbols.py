"""The link-level policy (issue 19, item 6) on real objects: compiled here with clang++
(and nvcc for CUDA), read with the toolchain's nm.

Honest code — the reference solutions, OpenMP, a CUDA launch — passes; each cheat of the
issue's corpus that reaches a library through a symbol is rejected: a Fortran BLAS call,
``at::cpu`` through a namespace alias, a tensor method through a pointer, the CPython API,
dynamic loading, raw syscalls, and a forbidden name defined by the candidate itself.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "kerneltrials" / "tasks" / "reference"
CLANG = shutil.which("clang++-19") or shutil.which("clang++")
NVCC = Path("/usr/local/cuda-13.0/bin/nvcc")


from kerneltrials.verifier.builds import _symbols as symbols  # noqa: E402

needs_clang = pytest.mark.skipif(CLANG is None, reason="no clang++ to compile the objects")

# Reference solutions: elementwise, reduction, softmax, matmul (all OpenMP), and a level-2
# one (PyTorch's conv in Python, the tail in C++): strict for level 1, mixed for level 2.
REFERENCES = ("level1/add_mul", "level1/sum_dim", "level1/softmax", "level1/matmul_square",
              "level1/layernorm", "level2/conv2d_bn_relu")

TORCH_CHEATS = {
    "alias_cpu": """
#include <ATen/CPUFunctions.h>
namespace A = at::cpu;
torch::Tensor f(torch::Tensor x, torch::Tensor y) { return A::add(x, y); }
""",
    "pointer_mm": """
torch::Tensor f(torch::Tensor x, torch::Tensor y) {
    torch::Tensor* p = &x;
    auto out = torch::empty_like(x);
    out = p->mm(y);
    return out;
}
""",
}

PLAIN = {
    "sgemm": """
extern "C" void sgemm_(const char*, const char*, const int*, const int*, const int*,
                       const float*, const float*, const int*, const float*, const int*,
                       const float*, float*, const int*);
void f(float* a, int n) { float one = 1.f; sgemm_("N", "N", &n, &n, &n, &one, a, &n, a, &n, &one, a, &n); }
""",
    "python": """
extern "C" {
struct _object; struct _frame; struct _ts;
_ts* PyThreadState_Get(); _frame* PyThreadState_GetFrame(_ts*); _object* PyFrame_GetLocals(_frame*);
_object* PySys_GetObject(const char*); int PyFunction_SetDefaults(_object*, _object*);
}
void f() { PyFunction_SetDefaults(PySys_GetObject("x"), PyFrame_GetLocals(PyThreadState_GetFrame(PyThreadState_Get()))); }
""",
    "dlopen": """
#include <dlfcn.h>
void* f() { return dlsym(dlopen("libopenblas.so", RTLD_NOW), "cblas_sgemm"); }
""",
    "syscall": """
#include <sys/syscall.h>
#include <unistd.h>
long f() { return syscall(SYS_process_vm_readv, 1, 0, 0, 0, 0, 0); }
""",
    # The candidate defines the name itself: through the GOT, libc's dlsym would be called.
    "defines_dlsym": """
extern "C" void* dlsym(void*, const char*) { return nullptr; }
void* (*volatile pick)(void*, const char*) = &dlsym;
""",
    "openmp": """
#include <cmath>
#include <cstdint>
#include <omp.h>
#include <vector>
void f(const float* x, float* y, int64_t n) {
    std::vector<float> partial(omp_get_max_threads());
    #pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) y[i] = std::tanh(x[i]) * std::exp(-x[i]);
    #pragma omp parallel
    { partial[omp_get_thread_num()] = 1.f; }
}
""",
    "caller": "int helper(int); int f(int x) { return helper(x) + 1; }\n",
    "helper": "int helper(int x) { return 2 * x; }\n",
}

CUDA_LAUNCH = """
#include <cuda_runtime.h>
__global__ void scale_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.f * x[i];
}
template <typename T> __global__ void fill(T* y, int n) { if (threadIdx.x < n) y[threadIdx.x] = T(1); }
void launch(const float* x, float* y, int n, cudaStream_t stream) {
    cudaFuncSetAttribute(scale_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024);
    scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
    fill<float><<<1, 32, 0, stream>>>(y, n);
    float* scratch = nullptr;
    cudaMalloc(&scratch, 64);
    cudaMemsetAsync(scratch, 0, 64, stream);
    cudaMemcpyAsync(scratch, x, 64, cudaMemcpyDeviceToDevice, stream);
    cudaFree(scratch);
    if (cudaGetLastError() != cudaSuccess) return;
}
"""


def reference_cpp(name: str) -> tuple[str, list[str]]:
    """The C++ a reference solution passes to load_inline, and its extra_cflags (by ast)."""
    tree = ast.parse((REFERENCE / f"{name}.py").read_text())
    strings = {target.id: node.value.value for node in tree.body if isinstance(node, ast.Assign)
               for target in node.targets
               if isinstance(target, ast.Name) and isinstance(node.value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "load_inline":
            keywords = {k.arg: k.value for k in node.keywords}
            sources = keywords["cpp_sources"]
            flags = keywords.get("extra_cflags")
            assert isinstance(sources, ast.List)
            text = "\n".join(str(strings[e.id] if isinstance(e, ast.Name) else ast.literal_eval(e))
                             for e in sources.elts)
            return text, list(ast.literal_eval(flags)) if flags is not None else []
    raise AssertionError(f"no load_inline call in {name}")


def _compile_with_torch(source: str, out: Path, extra_cflags: list[str]) -> Path:
    """The candidate's unit compiled as the fast path compiles it: its ``main.cpp``, stock's
    flags for these ``extra_cflags``, torch's header from the toolchain store's PCH (shared
    with every other build of the suite), the section flags the reachability reading uses."""
    from kerneltrials.verifier.builds._compiler import toolchain_store
    from kerneltrials.verifier.builds._fast import (
        SECTION_FLAGS,
        _compile_command,
        ensure_pch,
        fast_inputs,
        write_sources,
    )
    from kerneltrials.verifier.builds._toolrun import run_tool
    from kerneltrials.verifier.protocol import BuildRequest

    request = BuildRequest("kt_symbols_test", (source,), extra_cflags=tuple(extra_cflags))
    inputs = fast_inputs(request)
    pch = ensure_pch(inputs.cxx, inputs.cflags, toolchain_store())
    unit_dir = out.with_suffix("")  # one per unit: the fast path names every unit main.cpp
    unit_dir.mkdir()
    write_sources(request, unit_dir, stubs="")
    run_tool(_compile_command(inputs.cxx, inputs.cflags, pch, "main.cpp", SECTION_FLAGS), unit_dir)
    return unit_dir / "main.cpp.o"


def _compile(source: str, out: Path, flags: list[str]) -> Path:
    """A unit without torch, compiled by clang++ with ``flags``."""
    unit = out.with_suffix(".cpp")
    unit.write_text(source)
    subprocess.run([str(CLANG), *flags, "-c", str(unit), "-o", str(out)], check=True,
                   capture_output=True, text=True)
    return out


def _compile_all(jobs: dict[str, tuple[str, list[str]]], out: Path,
                 compile_unit: Callable[[str, Path, list[str]], Path] = _compile) -> dict[str, Path]:
    with ThreadPoolExecutor(max_workers=2) as pool:  # two compilers at most on these machines
        futures = {name: pool.submit(compile_unit, text, out / f"{name.replace('/', '_')}.o", flags)
                   for name, (text, flags) in jobs.items()}
        return {name: future.result() for name, future in futures.items()}


@pytest.fixture(scope="module")
def torch_objects(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The reference solutions and torch cheats, compiled once as the fast path compiles
    them (a few seconds each against the PCH; the first build of a flag set makes it)."""
    jobs = {name: reference_cpp(name) for name in REFERENCES}
    jobs.update({name: (text, ["-O2"]) for name, text in TORCH_CHEATS.items()})
    return _compile_all(jobs, tmp_path_factory.mktemp("torch_objects"), _compile_with_torch)


@pytest.fixture(scope="module")
def objects(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The snippets without torch (well under a second each)."""
    jobs = {name: (text, ["-O2", "-fPIC", "-fopenmp"]) for name, text in PLAIN.items()}
    return _compile_all(jobs, tmp_path_factory.mktemp("objects"))


def findings(path: Path | list[Path], policy: str, backend: str = "cpu") -> tuple[list[str], list[str]]:
    found = symbols.object_symbols(path if isinstance(path, list) else [path])
    return symbols.symbol_policy_findings(found.imports, policy, backend, defined=found.definitions)


# --- names alone (no compiler) ------------------------------------------------------------

def test_qualified_names_strip_return_types_templates_parameters_and_versions() -> None:
    assert symbols.qualified_name("float* at::TensorBase::data_ptr<float>() const") == "at::TensorBase::data_ptr"
    assert symbols.qualified_name("vtable for c10::Error") == "c10::Error"
    assert symbols.qualified_name("dlopen@GLIBC_2.34") == "dlopen"
    assert symbols.qualified_name("std::ostream::operator<<(int)") == "std::ostream::operator<<"
    assert symbols.qualified_name("operator new(unsigned long)") == "operator new"


def test_classification_of_the_named_groups() -> None:
    kind = symbols.Kind
    cases = {
        "at::_ops::empty_like::call(at::Tensor const&)": kind.ALLOWED,
        "at::_ops::mm::call(at::Tensor const&, at::Tensor const&)": kind.COMPUTE,
        "at::_ops::mm::redispatch(c10::DispatchKeySet, at::Tensor const&)": kind.FORBIDDEN,
        "at::native::relu(at::Tensor const&)": kind.FORBIDDEN,
        "c10::impl::dispatch_mode_enabled()": kind.FORBIDDEN,
        "c10::Dispatcher::singleton()": kind.FORBIDDEN,
        "std::chrono::_V2::steady_clock::now()": kind.FORBIDDEN,
        "std::thread::_M_start_thread(void (*)())": kind.FORBIDDEN,
        "PyEval_GetFrame": kind.FORBIDDEN, "cblas_sgemm": kind.FORBIDDEN,
        "cublasSgemm_v2": kind.FORBIDDEN, "mkl_sgemm": kind.FORBIDDEN, "dnnl_sgemm": kind.FORBIDDEN,
        "dgemm": kind.FORBIDDEN, "process_vm_readv": kind.FORBIDDEN, "execve": kind.FORBIDDEN,
        "omp_set_num_threads": kind.FORBIDDEN, "some_unlisted_function": kind.UNKNOWN,
        "expf": kind.ALLOWED, "__kmpc_fork_call": kind.ALLOWED, "GOMP_parallel": kind.ALLOWED,
    }
    assert {name: symbols.classify(name) for name in cases} == cases


def test_the_cuda_runtime_is_allowed_only_for_the_cuda_backend() -> None:
    for name in ("cudaLaunchKernel", "__cudaPushCallConfiguration", "cudaMemcpyAsync",
                 "c10::cuda::getCurrentCUDAStream(signed char)"):
        assert symbols.classify(name, "cuda") is symbols.Kind.ALLOWED
        assert symbols.classify(name, "cpu") is not symbols.Kind.ALLOWED
    assert symbols.classify("cuModuleLoadData", "cuda") is symbols.Kind.FORBIDDEN


def test_reasons_are_capped_and_policies_checked() -> None:
    many = [f"cblas_f{i}" for i in range(15)]
    rejected, notes = symbols.symbol_policy_findings(many, "strict", "cpu")
    assert len(rejected) == symbols.MAX_REASONS + 1 and rejected[-1].endswith("and 5 more")
    assert rejected[0] == "link:forbidden_symbol:cblas_f0" and notes == []
    with pytest.raises(ValueError):
        symbols.symbol_policy_findings([], "lenient", "cpu")


def test_a_module_of_the_candidates_own_says_what_to_do_first() -> None:
    # Its own PYBIND11_MODULE brings pybind11's CPython calls: the first reason says why
    # and what instead, the listing follows.
    rejected, _ = symbols.symbol_policy_findings(["PyErr_Occurred"], "strict", "cpu",
                                                 defined=["PyInit_kt_own", "relu"])
    assert rejected[0].startswith("link:own_python_module:PyInit_kt_own (")
    assert "functions=[...]" in rejected[0]
    assert rejected[1:] == ["link:forbidden_symbol:PyErr_Occurred",
                            "link:forbidden_symbol:PyInit_kt_own"]
    plain, _ = symbols.symbol_policy_findings(["PyErr_Occurred"], "strict", "cpu", ["relu"])
    assert plain == ["link:forbidden_symbol:PyErr_Occurred"]


# --- real objects -------------------------------------------------------------------------

@needs_clang
@pytest.mark.slow
@pytest.mark.parametrize("name", REFERENCES)
def test_reference_solutions_pass(torch_objects: dict[str, Path], name: str) -> None:
    policy = "strict" if name.startswith("level1") else "mixed"
    assert findings(torch_objects[name], policy) == ([], [])
    assert "__kmpc_fork_call" in symbols.undefined_symbols([torch_objects[name]])  # OpenMP, allowed


@needs_clang
@pytest.mark.slow
def test_library_compute_without_the_dispatcher_is_rejected(torch_objects: dict[str, Path]) -> None:
    # at::cpu under a namespace alias bypasses the dispatcher, so even mixed rejects it:
    # the recorder that weighs PyTorch's work under mixed would never see it.
    for policy in ("strict", "mixed"):
        rejected, _ = findings(torch_objects["alias_cpu"], policy)
        assert any(r.startswith("link:forbidden_symbol:at::cpu::add(") for r in rejected), rejected


@needs_clang
@pytest.mark.slow
def test_a_tensor_method_through_a_pointer_is_compute(torch_objects: dict[str, Path]) -> None:
    rejected, notes = findings(torch_objects["pointer_mm"], "strict")
    assert [r for r in rejected if "at::_ops::mm::call" in r] and notes == []
    rejected, notes = findings(torch_objects["pointer_mm"], "mixed")
    assert rejected == [] and [n for n in notes if n.startswith("note:link:library_compute:at::_ops::mm::call")]


@needs_clang
@pytest.mark.parametrize(("name", "expected"), [
    ("sgemm", ["sgemm_"]),
    ("python", ["PyFrame_GetLocals", "PyFunction_SetDefaults", "PySys_GetObject",
                "PyThreadState_Get", "PyThreadState_GetFrame"]),
    ("dlopen", ["dlopen", "dlsym"]),
    ("syscall", ["syscall"]),
    ("defines_dlsym", ["dlsym"]),
])
def test_escapes_are_rejected_under_both_policies(objects: dict[str, Path], name: str,
                                                  expected: list[str]) -> None:
    for policy in ("strict", "mixed"):
        rejected, notes = findings(objects[name], policy)
        assert sorted(rejected) == [f"link:forbidden_symbol:{s}" for s in expected] and notes == []


@needs_clang
def test_honest_openmp_passes_and_a_symbol_defined_by_another_object_is_no_import(
        objects: dict[str, Path]) -> None:
    assert findings(objects["openmp"], "strict") == ([], [])
    assert "helper(int)" in symbols.undefined_symbols([objects["caller"]])
    assert "helper(int)" not in symbols.undefined_symbols([objects["caller"], objects["helper"]])
    assert findings([objects["caller"], objects["helper"]], "strict") == ([], [])


@needs_clang
def test_reading_symbols_costs_milliseconds(objects: dict[str, Path]) -> None:
    path = objects["openmp"]
    start = time.perf_counter()
    found = symbols.object_symbols([path])
    symbols.symbol_policy_findings(found.imports, "strict", "cpu", defined=found.definitions)
    elapsed = time.perf_counter() - start
    print(f"nm + policy on {path.name} ({path.stat().st_size} bytes): {elapsed * 1000:.1f} ms")
    assert elapsed < 2.0


def test_a_missing_nm_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(symbols.shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="no nm tool"):
        symbols.find_nm()


@pytest.mark.skipif(not NVCC.is_file(), reason="nvcc not found at /usr/local/cuda-13.0")
def test_an_honest_cuda_launch_passes(tmp_path: Path) -> None:
    source = tmp_path / "kernel.cu"
    source.write_text(CUDA_LAUNCH)
    host = ["-ccbin", CLANG] if CLANG else []
    subprocess.run([str(NVCC), "-c", "-O2", "-arch=sm_90", "-Xcompiler", "-fPIC", *host,
                    str(source), "-o", str(tmp_path / "kernel.o")], check=True,
                   capture_output=True, text=True)
    imports = symbols.undefined_symbols([tmp_path / "kernel.o"])
    assert "__cudaRegisterFunction" in imports and "cudaMalloc" in imports
    assert findings(tmp_path / "kernel.o", "strict", "cuda") == ([], [])
    rejected, _ = findings(tmp_path / "kernel.o", "strict", "cpu")  # no GPU work on the cpu backend
    assert "link:forbidden_symbol:__cudaRegisterFatBinary" in rejected


def test_what_honest_corpus_kernels_import_is_allowed() -> None:
    # Both seen in tests/verifier/corpus.py's CORPUS_CPP objects: the deprecated
    # Tensor::data<T>() warning and the RTTI of a fundamental type.
    from kerneltrials.verifier.builds._symbols import Kind, classify

    for symbol in ("c10::warnDeprecatedDataPtr()", "typeinfo for int",
                   "typeinfo name for unsigned long"):
        assert classify(symbol) is Kind.ALLOWED, symbol
    assert classify("typeinfo for evil::Thing") is not Kind.ALLOWED
