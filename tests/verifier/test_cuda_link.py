"""The link policy on CUDA candidates (issue 19, item 6), on by default on the cuda backend.

The host code of a candidate's CUDA source is read as its C++ unit is: compiled with the
section flags (the split's clang host unit, and nvcc's host compile of the device unit or
of the whole source, through ``-Xcompiler``), so the reading counts only what can run
(builds/_reach.py). Before, an honest CUDA candidate's objects imported ~490 CPython and
pybind11 names from header code it never calls, and the policy was off for cuda.

Builds only: nvcc works on this machine, the run needs a GPU, so an honest candidate is
``not_run`` with no ``link:`` reason, and a cheat is ``rejected`` before anything runs.
Each cheat computes a correct ReLU on the GPU and reaches its forbidden symbol only on a
shape the task never uses, through an assembler label spelled in two string pieces, so no
scan of its text sees the name: what rejects it is the import in its object code.
"""

from __future__ import annotations

import os
import uuid

import pytest

import kerneltrials
from kerneltrials.verifier import QUICK_TIMING, CheckOptions, Status, Verdict
from tests.gpu import sources
from tests.verifier._build_fixtures import has_nvcc, torch_builds_cuda

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(900),
    pytest.mark.skipif(not has_nvcc(), reason="nvcc not found: set CUDA_HOME to a CUDA toolkit"),
    pytest.mark.skipif(not torch_builds_cuda(),
                       reason="torch is a CPU-only build: it cannot link CUDA extensions"),
]

_RELU = r"""
    auto xc = x.contiguous(); auto y = torch::empty_like(xc); int64_t n = xc.numel();
    relu_plain<<<(n + 255) / 256, 256>>>(xc.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;"""


def _cheat(name: str, declaration: str, use: str) -> str:
    """A correct ReLU whose host function also calls ``use`` on a 7-element input."""
    body = f"    if (x.numel() == 7) {{ {use} }}" + _RELU
    source = sources.relu_variant(f"kt_cuda_link_{name}", body)
    return source.replace("#include <cuda_runtime.h>\n", "#include <cuda_runtime.h>\n"
                          + declaration + "\n", 1)


#: cheat -> (source, the start of the reason it must be rejected with)
CHEATS = {
    "cublas_gemm": (_cheat(
        "cublas_gemm",
        'extern "C" int kt_gemm(void*, int, int, int, int, int, const float*, const float*, '
        'int, const float*, int, const float*, float*, int) __asm__("cublas" "Sgemm_v2");',
        "kt_gemm(nullptr, 0, 0, 1, 1, 1, nullptr, nullptr, 1, nullptr, 1, nullptr, nullptr, 1);"),
        "link:forbidden_symbol:cublasSgemm_v2"),
    "python_frame": (_cheat(
        "python_frame", 'extern "C" void* kt_frame() __asm__("PyEval_" "GetFrame");',
        "(void)kt_frame();"), "link:forbidden_symbol:PyEval_GetFrame"),
    "dlsym_lookup": (_cheat(
        "dlsym_lookup", 'extern "C" void* kt_lookup(void*, const char*) __asm__("dl" "sym");',
        '(void)kt_lookup(nullptr, "x");'), "link:forbidden_symbol:dlsym"),
    "at_mm_alias": (_cheat(
        "at_mm_alias", "namespace kt_t = at;",
        "auto z = kt_t::mm(x.view({1, 7}), x.view({7, 1})); (void)z;"),
        "link:forbidden_symbol:at::_ops::mm::call"),
}

HONEST = {
    "relu": ("L1/relu", sources.relu_work(0)),
    "matmul_tiled": ("L1/matmul_square", sources.MATMUL_TILED),
    "relu_bf16": ("L1/relu_bf16", sources.RELU_BF16),
}

#: Default options but for the run's length: the policy is on by default for cuda now.
OPTIONS = CheckOptions(backend="cuda", timing=QUICK_TIMING, compile_baseline=False,
                       hidden_seed=3, source_scans=False)


def verify(task: str, source: str) -> Verdict:
    return kerneltrials.check(task, source, options=OPTIONS)


def test_the_policy_is_on_by_default_for_cuda() -> None:
    assert CheckOptions(backend="cuda").resolved_link_policy()
    assert CheckOptions(backend="cpu").resolved_link_policy()


@pytest.mark.parametrize("name", sorted(HONEST))
def test_an_honest_cuda_candidate_imports_nothing_off_the_list(name: str) -> None:
    task, source = HONEST[name]
    verdict = verify(task, source)
    assert verdict.compiled, verdict.reasons
    assert not [r for r in verdict.reasons if r.startswith("link:")], verdict.reasons
    assert verdict.status in (Status.NOT_RUN, Status.CORRECT), (verdict.status, verdict.reasons)


@pytest.mark.parametrize("name", sorted(CHEATS))
def test_a_cuda_cheat_is_rejected_for_its_import(name: str) -> None:
    source, reason = CHEATS[name]
    verdict = verify("L1/relu", source)
    assert verdict.status == Status.REJECTED, (verdict.status, verdict.reasons)
    assert any(r.startswith(reason) for r in verdict.reasons), verdict.reasons


@pytest.mark.skipif(not os.environ.get("KERNELTRIALS_TEST_WHOLE_CUDA"),
                    reason="set KERNELTRIALS_TEST_WHOLE_CUDA=1 to check nvcc's whole-unit "
                           "build too (~2.5 min of nvcc per candidate)")
def test_nvccs_whole_unit_build_is_read_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KERNELTRIALS_CUDA_SPLIT", "0")
    salt = f"// whole {uuid.uuid4()}\n"  # the split's cached builds must not answer
    honest = verify("L1/relu", sources.relu_work(0, salt=salt))
    assert honest.build["paths"][0].startswith("fast+whole"), honest.build
    assert not [r for r in honest.reasons if r.startswith("link:")], honest.reasons
    source, reason = CHEATS["python_frame"]
    cheat = verify("L1/relu", source.replace("#include <cuda_runtime.h>\n",
                                             "#include <cuda_runtime.h>\n" + salt, 1))
    assert cheat.build["paths"][0].startswith("fast+whole"), cheat.build
    assert cheat.status == Status.REJECTED, cheat.reasons
    assert any(r.startswith(reason) for r in cheat.reasons), cheat.reasons
