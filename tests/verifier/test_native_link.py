"""The link policy (issue 19, item 6) end to end: native cheats in tests/verifier/native_link/
are rejected for the symbols their own objects import, read by the parent with nm.

Each cheat computes a correct ReLU and reaches its forbidden symbol only on a shape the task
never uses: what rejects it is the import, not its behaviour or its source text.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import kerneltrials
from kerneltrials.verifier import QUICK_TIMING, CheckOptions, Status, Verdict
from kerneltrials.verifier.builds._symbols import LinkToolMissing, link_record
from tests.verifier.corpus import TASKS

NATIVE = Path(__file__).parent / "native_link"
STRICT, MIXED = TASKS / "tiny_relu.py", TASKS / "tiny_relu_mixed.py"

#: cheat -> the start of the reason it must be rejected with.
CHEATS = {
    "py_thread_state_frame": "link:forbidden_symbol:PyThreadState_GetFrame",
    "py_frame_locals": "link:forbidden_symbol:PyFrame_GetLocals",
    "py_sys_object": "link:forbidden_symbol:PySys_GetObject",
    "py_function_defaults": "link:forbidden_symbol:PyFunction_SetDefaults",
    "py_import_module": "link:forbidden_symbol:PyImport_ImportModule",
    "pybind_alias": "link:forbidden_symbol:Py",
    "at_cpu_alias": "link:forbidden_symbol:at::cpu::mm",
    "fortran_sgemm": "link:forbidden_symbol:sgemm_",
    "tensor_method_pointer": "link:forbidden_symbol:at::_ops::mm::call",
    "dlopen_library": "link:forbidden_symbol:dlopen",
    "dlsym_lookup": "link:forbidden_symbol:dlsym",
    "fork_process": "link:forbidden_symbol:fork",
    "execve_process": "link:forbidden_symbol:execve",
    "socket_open": "link:forbidden_symbol:socket",
    "open_file": "link:forbidden_symbol:open",
    "own_pyinit": "link:forbidden_symbol:PyInit_native_evil",
}

#: The source scans off: the link policy must hold alone (several cheats are also caught by
#: the C++ scan, which is defence in depth).
FAST = CheckOptions(timing=QUICK_TIMING, compile_baseline=False, call_timeout_s=60,
                    source_scans=False, link_policy=True)


def verify(source: str, task: Path, options: CheckOptions = FAST) -> Verdict:
    return kerneltrials.check(task, source, hidden_seed=11, compile_baseline=False,
                              options=options)


def _has(verdict: Verdict, prefix: str) -> bool:
    return any(reason.startswith(prefix) for reason in verdict.reasons)


def test_the_native_corpus_is_complete() -> None:
    assert {path.stem for path in NATIVE.glob("*.py")} == set(CHEATS)
    assert len(CHEATS) >= 12


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("name", sorted(CHEATS))
def test_native_cheat_is_rejected_for_its_symbol(name: str) -> None:
    verdict = verify((NATIVE / f"{name}.py").read_text(), STRICT)
    assert verdict.status == Status.REJECTED, verdict.reasons
    assert _has(verdict, CHEATS[name]), verdict.reasons
    assert verdict.speedup is None


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_cache_hit_gives_the_same_link_verdict() -> None:
    source = (NATIVE / "dlopen_library.py").read_text()
    first, again = verify(source, STRICT), verify(source, STRICT)
    assert again.status == first.status == Status.REJECTED
    assert [r for r in again.reasons if r.startswith("link:")] == \
        [r for r in first.reasons if r.startswith("link:")]


_MIXED_SOURCE = (NATIVE / "tensor_method_pointer.py").read_text().replace(
    "at::Tensor* p = &input; out = p->mm(input);", "").replace(
    "    return out;\n}", "    at::Tensor* p = &input;\n    (void)p->abs();\n    return out;\n}")


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_library_compute_is_a_note_under_mixed_and_rejected_under_strict() -> None:
    mixed = verify(_MIXED_SOURCE, MIXED)
    assert not _has(mixed, "link:forbidden_symbol"), mixed.reasons
    assert _has(mixed, "note:link:library_compute:at::_ops::abs::call"), mixed.reasons
    strict = verify(_MIXED_SOURCE, STRICT)
    assert strict.status == Status.REJECTED
    assert _has(strict, "link:forbidden_symbol:at::_ops::abs::call"), strict.reasons


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_option_turns_the_link_policy_off() -> None:
    options = CheckOptions(timing=QUICK_TIMING, compile_baseline=False, call_timeout_s=60,
                           source_scans=False, link_policy=False)
    verdict = verify((NATIVE / "dlopen_library.py").read_text(), STRICT, options)
    assert not _has(verdict, "link:"), verdict.reasons


def test_no_nm_fails_closed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "unit.c"
    source.write_text("int f(void) { return 1; }\n")
    objects = tmp_path / "objects"
    objects.mkdir()
    subprocess.run(["cc", "-c", str(source), "-o", str(objects / "unit.o")], check=True)
    assert link_record(objects)["definitions"] == ["f"]
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(LinkToolMissing):
        link_record(objects)


def test_a_build_without_objects_is_recorded_as_unread(tmp_path: Path) -> None:
    assert link_record(tmp_path / "absent") == {"read": False}
