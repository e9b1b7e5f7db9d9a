"""Static checks, table-driven: name resolution, every-path analysis, the C++ scan, policy.

No torch, no builds: these run in milliseconds.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import pytest

from kerneltrials.verifier.static._checks import run_static_checks
from kerneltrials.verifier.static._cpp import check_cpp
from kerneltrials.verifier.verdict import Status

PRELUDE = """
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

ext = load_inline(name="k", cpp_sources=["torch::Tensor k(torch::Tensor x);"], functions=["k"])
"""


def candidate(forward: str, extra: str = "", init: str = "") -> str:
    """A candidate whose forward body is ``forward`` (``extra``: module-level code)."""
    body = textwrap.indent(textwrap.dedent(forward).strip(), " " * 8)
    init_body = textwrap.indent(textwrap.dedent(init).strip(), " " * 8) if init else ""
    return (PRELUDE + textwrap.dedent(extra) + "\n\nclass ModelNew(nn.Module):\n"
            "    def __init__(self):\n        super().__init__()\n" + (init_body + "\n" if init else "")
            + "\n    def forward(self, x):\n" + body + "\n")


def reasons(source: str, policy: str = "strict", backend: str = "cpu") -> list[str]:
    return run_static_checks(source, backend, policy).reasons


@pytest.mark.parametrize(("forward", "extra", "expected"), [
    ("return torch.relu(ext.k(x))", "", "torch.relu"),
    ("return T.relu(ext.k(x))", "import torch as T", "torch.relu"),
    ("return relu(ext.k(x))", "from torch import relu", "torch.relu"),
    ("return act(ext.k(x))", "act = F.gelu", "torch.nn.functional.gelu"),
    ('return getattr(F, "silu")(ext.k(x))', "", "torch.nn.functional.silu"),
    ("return ext.k(x).softmax(-1)", "", ".softmax()"),
    ("return ext.k(x) @ x", "", "@"),
    ("return torch.ops.aten.relu(ext.k(x))", "", "torch.ops.aten.relu"),
    ("return torch.linalg.norm(ext.k(x))", "", "torch.linalg.norm"),
])
def test_strict_finds_torch_compute_through_aliases(forward: str, extra: str, expected: str) -> None:
    found = reasons(candidate(forward, extra))
    assert any(r.startswith(f"static:torch_compute_in_forward:{expected} ") for r in found), found
    assert not any("torch_compute" in r for r in reasons(candidate(forward, extra), "mixed"))


def test_views_allocation_and_shape_ops_are_allowed_under_strict() -> None:
    source = candidate("""
        out = torch.empty_like(x)
        y = ext.k(x.reshape(-1).contiguous()).view(x.shape)
        z = torch.cat([y, torch.zeros_like(y)], dim=0).narrow(0, 0, x.shape[0])
        return z.to(torch.float32)
    """)
    assert reasons(source) == []


def test_nn_submodule_that_computes_is_torch_compute_under_strict() -> None:
    source = candidate("return self.act(ext.k(x))", init="self.act = nn.GELU()")
    assert any("torch.nn.GELU" in r for r in reasons(source))
    kept = candidate("return self.body(ext.k(x))", init="self.body = nn.Identity()")
    assert reasons(kept) == []


@pytest.mark.parametrize(("forward", "code"), [
    ("if x.numel() > 10:\n    return ext.k(x)\nreturn x", "static:kernel_not_on_every_path"),
    ("y = x if x.is_contiguous() else ext.k(x)\nreturn y", "static:kernel_not_on_every_path"),
    ("return x.clone()", "static:kernel_never_called"),
    ("return x and ext.k(x)", "static:kernel_not_on_every_path"),
])
def test_kernel_must_run_on_every_path(forward: str, code: str) -> None:
    assert any(r.startswith(code) for r in reasons(candidate(forward), "mixed"))


@pytest.mark.parametrize("forward", [
    "if x.is_contiguous():\n    return ext.k(x)\nelse:\n    return ext.k(x.contiguous())",
    "if x.dim() != 2:\n    raise ValueError('2-D only')\nreturn ext.k(x)",
    "return self.helper(x)",
    "return helper(x) * 2",
    "for _ in range(2):\n    x = ext.k(x)\nreturn x",
])
def test_kernel_on_every_path_through_helpers_and_branches(forward: str) -> None:
    extra = "def helper(t):\n    return ext.k(t)\n"
    source = candidate(forward, extra).replace(
        "    def forward", "    def helper(self, t):\n        return ext.k(t)\n\n    def forward")
    assert reasons(source, "mixed") == []


@pytest.mark.parametrize(("code", "expected"), [
    ("import threading", "static:threads:threading"),
    ("from concurrent.futures import ThreadPoolExecutor", "static:threads:concurrent.futures"),
    ("import numpy as np", "static:forbidden_module:numpy"),
    ("import ctypes", "static:forbidden_module:ctypes"),
    ("import inspect", "static:forbidden_module:inspect"),
    ("import kerneltrials.verifier", "static:imports_harness"),
    ("import os\nos.system('true')", "static:forbidden_call:os.system"),
    ("time = __import__('time')", "static:forbidden_call:__import__"),
    ("torch.equal = lambda a, b: True", "static:patches_global:torch.equal"),
    ("setattr(torch, 'allclose', None)", "static:patches_global:torch.allclose"),
    ("import time\nsetattr(time, 'perf_counter', None)", "static:patches_global:time.perf_counter"),
    ("torch.Tensor.__eq__ = None", "static:dunder_access:__eq__"),
    ("torch.backends.cudnn.benchmark = True", "static:backend_flag:benchmark"),
    ("torch.set_float32_matmul_precision('medium')", "static:backend_flag:set_float32_matmul_precision"),
    ("torch.manual_seed(0)", "static:rng_state:torch.manual_seed"),
    ("s = torch.cuda.Stream()", "static:side_stream:torch.cuda.Stream"),
    ("class T(torch.Tensor):\n    pass", "static:tensor_subclass"),
    ("from torch.utils._python_dispatch import TorchDispatchMode", "static:private_torch_api"),
    ("lib = torch.library.Library('aten', 'IMPL')", "static:foreign_code:torch.library"),
    ("from contextlib import suppress", "static:try_except_fallback:contextlib.suppress"),
    ("x = print.__self__", "static:dunder_access:__self__"),
])
def test_module_wide_findings(code: str, expected: str) -> None:
    found = reasons(candidate("return ext.k(x)", extra=code), "mixed")
    assert any(r.startswith(expected) for r in found), found


def test_os_environ_for_the_build_is_allowed() -> None:
    source = candidate("return ext.k(x)", extra="import os\nos.environ['TORCH_CUDA_ARCH_LIST'] = '9.0'")
    assert reasons(source, "mixed") == []


@pytest.mark.parametrize(("cpp", "expected", "strict_only"), [
    ("torch::Tensor f(torch::Tensor x) { return at::matmul(x, x); }", "cpp:library_compute:at::matmul", True),
    ("torch::Tensor f(torch::Tensor x) { return torch::nn::functional::relu(x); }", "cpp:library_compute:at::relu", True),
    ("torch::Tensor f(torch::Tensor x) { return at::_ops::relu::call(x); }", "cpp:library_compute:at::relu", True),
    ("torch::Tensor f(torch::Tensor x) { return x.sum(0); }", "cpp:library_compute:.sum()", True),
    ("using namespace at;\nTensor f(Tensor x) { return softmax(x, 0); }", "cpp:library_compute:at::softmax", True),
    ("void g() { cublasSgemm(h, a, b); }", "cpp:library_compute:cublasSgemm", True),
    ("#define MM at::mm\nTensor f(Tensor x) { return MM(x, x); }", "cpp:library_compute:at::mm", True),
    ("TORCH_LIBRARY_IMPL(aten, CPU, m) { m.impl(\"relu\", f); }", "cpp:dispatcher_registration", False),
    ("void g() { c10::impl::ExcludeDispatchKeyGuard guard(k); }", "cpp:dispatcher_registration", False),
    ("void g() { std::thread t([]{}); t.detach(); }", "cpp:threads:std::thread", False),
    ("void g() { auto s = at::cuda::getStreamFromPool(); }", "cpp:side_stream:getStreamFromPool", False),
    ("void g() { system(\"ls\"); }", "static:forbidden_cpp:system", False),
    ("void g() { FILE* f = popen(\"ls\", \"r\"); }", "static:forbidden_cpp:popen", False),
    ("__attribute__((constructor)) void g() {}", "cpp:load_time_code", False),
    ("void g() { py::module_::import(\"time\"); }", "cpp:python_access", False),
    ("#define CAT(a, b) a##b\nvoid g() {}", "cpp:token_pasting", False),
])
def test_cpp_scan(cpp: str, expected: str, strict_only: bool) -> None:
    findings = [f for f in check_cpp(cpp) if f.reason().startswith(expected)]
    assert findings, [f.reason() for f in check_cpp(cpp)]
    assert findings[0].strict_only is strict_only


def test_honest_cpp_has_no_findings() -> None:
    cpp = """
    #include <torch/extension.h>
    // at::relu would be cheating; this comment must not count
    torch::Tensor relu(torch::Tensor x) {
        auto input = x.contiguous();
        auto out = torch::empty_like(input);
        auto opts = torch::TensorOptions().dtype(torch::kFloat32);
        const char* name = "at::matmul(x)";
        float* dst = out.data_ptr<float>();
        const float* src = input.data_ptr<float>();
        #pragma omp parallel for
        for (int64_t i = 0; i < input.numel(); ++i) dst[i] = std::max(src[i], 0.f);
        return out.view({input.size(0), -1});
    }
    """
    assert check_cpp(cpp) == []


def test_cuda_error_check_macro_with_exit_is_not_a_finding() -> None:
    cpp = """
    #define CUDA_CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { exit(1); } } while (0)
    __global__ void k(const float* x, float* y, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) y[i] = fmaxf(x[i], 0.f);
    }
    torch::Tensor relu(torch::Tensor x) {
        auto y = torch::empty_like(x);
        k<<<(x.numel() + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
            x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
        CUDA_CHECK(cudaGetLastError());
        return y;
    }
    """
    assert check_cpp(cpp) == []


def test_library_compute_is_a_policy_decision() -> None:
    source = candidate("return ext.k(x)").replace(
        '"torch::Tensor k(torch::Tensor x);"', '"torch::Tensor k(torch::Tensor x) { return at::relu(x); }"')
    strict = run_static_checks(source, "cpu", "strict")
    mixed = run_static_checks(source, "cpu", "mixed")
    assert strict.status == Status.REJECTED and strict.reasons[0].startswith("cpp:library_compute:at::relu")
    assert mixed.passed and mixed.notes and mixed.notes[0].startswith("note:cpp:library_compute:at::relu")


def test_dispatcher_registration_is_rejected_under_every_policy() -> None:
    source = candidate("return ext.k(x)").replace(
        '"torch::Tensor k(torch::Tensor x);"', '"TORCH_LIBRARY(my, m) { m.def(\\"k\\", k); }"')
    assert any(r.startswith("cpp:dispatcher_registration") for r in reasons(source, "mixed"))


def test_cuda_backend_needs_cuda_sources() -> None:
    found = reasons(candidate("return ext.k(x)"), "mixed", backend="cuda")
    assert any(r.startswith("static:no_custom_kernel:no load_inline call has cuda_sources") for r in found)


def test_unknown_policy_is_an_error() -> None:
    with pytest.raises(ValueError, match="strict or mixed"):
        run_static_checks(candidate("return ext.k(x)"), "cpu", "lenient")


def test_static_checks_take_milliseconds_and_never_import_torch() -> None:
    code = ("import sys, time\nfrom kerneltrials.verifier.static._checks import run_static_checks\n"
            f"source = {candidate('return ext.k(x)')!r}\n"
            "start = time.perf_counter()\n"
            "for _ in range(50): run_static_checks(source, 'cpu', 'strict')\n"
            "print((time.perf_counter() - start) / 50, 'torch' in sys.modules)\n")
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=60, check=True).stdout.split()
    assert float(output[0]) < 0.05 and output[1] == "False"


def test_static_pass_is_fast_on_a_real_candidate() -> None:
    started = time.perf_counter()
    reasons(candidate("return ext.k(x)"))
    assert time.perf_counter() - started < 0.5


# KernelBench's adversarial "zero_out"/"result_reuse" shape: C++ in cuda_sources that only
# allocates, so nothing of the candidate's own ever runs on the GPU.
_NO_KERNEL_CUDA = (
    "import torch\nimport torch.nn as nn\nfrom torch.utils.cpp_extension import load_inline\n"
    'src = "torch::Tensor k(torch::Tensor x) { return torch::zeros_like(x); }"\n'
    'ext = load_inline(name="e", cpp_sources="torch::Tensor k(torch::Tensor x);", '
    'cuda_sources=src, functions=["k"])\n'
    "class ModelNew(nn.Module):\n    def forward(self, x):\n        return ext.k(x)\n")


def test_cuda_candidate_without_a_global_function_is_rejected() -> None:
    report = run_static_checks(_NO_KERNEL_CUDA, "cuda", "mixed")
    assert not report.passed
    assert any(r.startswith("static:no_device_kernel:no __global__") for r in report.reasons)


def test_cuda_candidate_that_never_launches_its_kernel_is_rejected() -> None:
    source = _NO_KERNEL_CUDA.replace('src = "', 'src = "__global__ void g(float* p) { p[0] = 0; }\\n')
    found = run_static_checks(source, "cuda", "mixed").reasons
    assert any(r.startswith("static:no_device_kernel:a __global__ function is never launched")
               for r in found)


def test_cuda_candidate_with_a_launched_kernel_passes_the_device_kernel_rule() -> None:
    source = _NO_KERNEL_CUDA.replace(
        'src = "', 'src = "__global__ void g(float* p) { p[0] = 0; }\\n'
        'void launch(float* p) { g<<<1, 1>>>(p); }\\n')
    assert not any(r.startswith("static:no_device_kernel")
                   for r in run_static_checks(source, "cuda", "mixed").reasons)


def test_device_kernel_rule_is_cuda_only() -> None:
    assert not any(r.startswith("static:no_device_kernel")
                   for r in run_static_checks(_NO_KERNEL_CUDA, "cpu", "mixed").reasons)


def test_a_source_nested_past_the_parser_or_the_checks_is_a_verdict_not_a_crash() -> None:
    # The static checks run in the harness's own process: a candidate's `1+1+...+1`
    # made ast.parse (200,000 terms) or the checks' recursive walks (600) raise
    # RecursionError out of check() itself.
    from kerneltrials.verifier.harness._llm_verifier import strip_for_review
    from tests.verifier.candidates import candidate

    def padded(terms: int) -> str:
        return candidate("relu_ok") + "\nPADDING = " + "+".join(["1"] * terms) + "\n"

    parser = run_static_checks(padded(200_000), "cpu")
    assert parser.status == Status.COMPILE_ERROR
    assert parser.reasons == ["static:syntax_error:the source nests deeper than Python's parser goes"]
    walks = run_static_checks(padded(2000), "cpu")
    assert walks.status == Status.REJECTED
    assert walks.reasons == ["static:unanalysable:the source nests deeper than the checks walk"]
    assert run_static_checks(padded(100), "cpu").status is None  # an ordinary long sum
    assert strip_for_review(padded(2000)) == ""


def test_a_source_too_large_to_read_is_refused_before_parsing() -> None:
    from kerneltrials.verifier.static._checks import MAX_CANDIDATE_BYTES

    started = time.perf_counter()
    report = run_static_checks("x = 1\n" + "#" * MAX_CANDIDATE_BYTES, "cpu")
    assert report.status == Status.COMPILE_ERROR
    assert report.reasons[0].startswith("static:source_too_large:")
    assert time.perf_counter() - started < 5
