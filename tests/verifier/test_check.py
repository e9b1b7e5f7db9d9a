"""End-to-end verdicts of ``kerneltrials.check`` on real builds and real workers.

All CPU candidates here share one C++ source (see ``candidates.py``): the first test
to run builds it, every other build is a cache hit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import kerneltrials
from kerneltrials.tasks import TaskError
from kerneltrials.verifier import CheckOptions, Status
from tests.timings import ONE_CALL_TIMING
from tests.verifier.candidates import candidate

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

FAST = CheckOptions(timing=ONE_CALL_TIMING, compile_baseline=False, call_timeout_s=30)


def run(source: str, task: str | Path = "L1/relu", **overrides: object) -> kerneltrials.verifier.Verdict:
    options = CheckOptions(**{**FAST.__dict__, **overrides})  # type: ignore[arg-type]
    return kerneltrials.check(task, source, hidden_seed=11, compile_baseline=False, options=options)


def test_honest_candidate_is_correct_with_a_positive_speedup() -> None:
    verdict = run(candidate("relu_ok"))
    assert verdict.status == Status.CORRECT, verdict.reasons
    assert verdict.correct and verdict.compiled
    assert verdict.speedup is not None and verdict.speedup > 0
    kinds = [config.kind for config in verdict.configs]
    assert kinds.count("public") == 3 and kinds.count("hidden") == 3
    assert all(config.passed and config.times_ms["candidate"].median > 0 for config in verdict.configs)
    assert verdict.hidden_seed == 11 and verdict.hardware["cores"] >= 1


def test_wrong_candidate_is_incorrect_with_the_error_size() -> None:
    verdict = run(candidate("relu_wrong"))
    assert verdict.status == Status.INCORRECT
    assert verdict.speedup is None and not verdict.correct
    assert any(reason.startswith("correctness:max_abs_err=") for reason in verdict.reasons)
    assert all(not config.passed for config in verdict.configs)


_SECOND_CALL = r'''
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

SOURCE = """
#include <torch/extension.h>

torch::Tensor relu_scaled(torch::Tensor x, double scale) {
    auto in = x.contiguous();
    auto out = torch::empty_like(in);
    const float* src = in.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    const float factor = static_cast<float>(scale);
    for (int64_t i = 0; i < in.numel(); ++i) dst[i] = (src[i] > 0.f ? src[i] : 0.f) * factor;
    return out;
}
"""
ext = load_inline(name="kt_relu_scaled", cpp_sources=[SOURCE], functions=["relu_scaled"],
                  extra_cflags=["-O1"])


class ModelNew(nn.Module):  # every second call is off by DELTA (relative)
    calls = 0

    def forward(self, x):
        ModelNew.calls += 1
        return ext.relu_scaled(x, 1.0 + DELTA if ModelNew.calls % 2 == 0 else 1.0)
'''


def test_a_repeated_call_must_agree_with_the_first_bitwise_or_within_tolerance() -> None:
    # The repeat is settled by one bitwise pass when the kernel is deterministic, and
    # compared to tolerance otherwise: a wrong repeat fails, a slightly different one passes.
    wrong = run(_SECOND_CALL.replace("DELTA", "0.5"))
    assert wrong.status == Status.INCORRECT, wrong.reasons
    assert any(r.startswith("correctness:repeat_mismatch") for r in wrong.reasons), wrong.reasons
    close = run(_SECOND_CALL.replace("DELTA", "1e-6"))
    assert close.status == Status.CORRECT, close.reasons


def test_candidate_right_only_on_public_shapes_fails_on_hidden_ones() -> None:
    verdict = run(candidate("relu_public_only"))
    assert verdict.status == Status.INCORRECT
    public = [c for c in verdict.configs if c.kind == "public"]
    hidden = [c for c in verdict.configs if c.kind == "hidden"]
    assert all(c.passed for c in public)
    assert hidden and not any(c.passed for c in hidden)


def test_crashing_candidate_is_a_runtime_error_naming_the_signal() -> None:
    verdict = run(candidate("relu_crash"))
    assert verdict.status == Status.RUNTIME_ERROR
    assert any("signal 11" in reason for reason in verdict.reasons), verdict.reasons


def test_hanging_candidate_times_out() -> None:
    verdict = run(candidate("relu_hang"), call_timeout_s=6.0)
    assert verdict.status == Status.TIMEOUT
    assert any(reason.startswith("timeout:") for reason in verdict.reasons)


def test_non_compiling_candidate_is_a_compile_error_with_the_compiler_message() -> None:
    source = candidate("relu_ok").replace("static torch::Tensor apply", "static torch::Tensor apply(")
    verdict = run(source)
    assert verdict.status == Status.COMPILE_ERROR and not verdict.compiled
    assert any("error" in reason for reason in verdict.reasons)


def test_a_cpp_typo_is_told_at_the_candidates_line_and_answered_at_once_when_resubmitted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import time
    import uuid

    from kerneltrials.verifier import _check

    launched: list[object] = []  # the run stage's workers, started only after a build

    def counted(session: object) -> object:
        launched.append(session)
        return launch_workers(session)

    launch_workers = _check.launch_workers
    monkeypatch.setattr(_check, "launch_workers", counted)

    typo = "relu_ok(torch::Tensor x) { return apply(x.contiguous(), 0.f) }"  # no ';'
    source = candidate("relu_ok", salt=uuid.uuid4().hex).replace(
        "relu_ok(torch::Tensor x) { return apply(x.contiguous(), 0.f); }", typo)
    line = next(n for n, text in enumerate(source.splitlines(), 1) if typo in text)
    started = time.perf_counter()
    first = run(source)
    print(f"a fresh C++ typo answered in {time.perf_counter() - started:.1f} s")
    assert first.status == Status.COMPILE_ERROR, first.reasons
    assert launched == []  # no worker started (and imported torch) beside the compiler
    (reason,) = [r for r in first.reasons if r.startswith("build:compile_error:")]
    # The compiler's error at the line of the candidate's own file, with its code; none of
    # the build system's command lines.
    assert f"the candidate line {line} (" in reason and "error:" in reason, reason
    assert typo.strip() in reason
    assert "ninja" not in reason and "-MMD" not in reason and "-DTORCH_EXTENSION" not in reason
    # The same source again: the recorded verdict, with no compile and no worker.
    again = run(source)
    assert again.status == Status.COMPILE_ERROR
    assert reason in again.reasons and "build:cached:" in again.reasons[-1]
    assert "build" not in again.durations_s and not again.isolation, again.durations_s


def test_python_syntax_error_is_a_compile_error() -> None:
    verdict = run("class ModelNew(:\n    pass\n")
    assert verdict.status == Status.COMPILE_ERROR
    assert verdict.reasons[0].startswith("static:syntax_error:line 1")


def test_candidate_without_model_new_is_rejected() -> None:
    verdict = run(candidate("relu_ok").replace("class ModelNew", "class Other"))
    assert verdict.status == Status.REJECTED
    assert any(reason.startswith("static:no_model_new") for reason in verdict.reasons)


def test_candidate_raising_at_import_is_a_runtime_error() -> None:
    verdict = run(candidate("relu_ok") + "\nraise RuntimeError('boom at import')\n")
    assert verdict.status == Status.RUNTIME_ERROR
    assert any("boom at import" in reason for reason in verdict.reasons)


def test_kernelbench_problem_file_loads_unchanged_and_is_judged(repo_root: Path) -> None:
    path = repo_root / "tests" / "data" / "kernelbench" / "level1" / "19_ReLU.py"
    verdict = run(candidate("relu_ok"), task=path)
    assert verdict.task == "kb/L1/19_ReLU"
    assert verdict.status == Status.CORRECT, verdict.reasons
    # No TASK: the file's own constants are the public configuration, and one hidden one
    # is derived around them (tasks/_derive.py).
    assert [c.kind for c in verdict.configs] == ["public", "hidden"]
    assert verdict.configs[0].params["batch_size"] == 4096
    assert verdict.configs[1].params["batch_size"] != 4096


def test_a_candidate_hard_coded_to_a_kernelbench_files_shape_fails_its_derived_one(
        repo_root: Path) -> None:
    path = repo_root / "tests" / "data" / "kernelbench" / "level1" / "19_ReLU.py"
    verdict = run(candidate("relu_public_only"), task=path)  # right only at 4096 x 393
    assert verdict.status == Status.INCORRECT, verdict.reasons
    assert [(c.kind, c.passed) for c in verdict.configs] == [("public", True), ("hidden", False)]


def test_reference_that_crashes_is_a_task_error_naming_the_file(tmp_path: Path) -> None:
    task = tmp_path / "crashing_task.py"
    task.write_text(
        "import torch\nimport torch.nn as nn\nrows = 8\n"
        "class Model(nn.Module):\n    def forward(self, x):\n        raise ValueError('reference bug')\n"
        "def get_inputs():\n    return [torch.randn(rows, 4)]\n"
        "def get_init_inputs():\n    return []\n"
    )
    with pytest.raises(TaskError) as error:
        run(candidate("relu_ok"), task=task)
    assert str(task) in str(error.value) and "reference bug" in str(error.value)


def test_a_kernelbench_file_with_only_nonnegative_inputs_is_noted_once() -> None:
    from types import SimpleNamespace

    import torch

    from kerneltrials.verifier.harness._judge import NONNEGATIVE_NOTE, _note_nonnegative_inputs

    def noted(has_task_dict: bool, inputs: list[Any]) -> list[str]:
        session = SimpleNamespace(task=SimpleNamespace(has_task_dict=has_task_dict), reasons=[],
                                  options=CheckOptions())
        for _ in range(2):  # every seed's inputs pass through; the note is said once
            _note_nonnegative_inputs(session, inputs)  # type: ignore[arg-type]
        return session.reasons

    rand = [torch.rand(8, 8), torch.tensor([3, 1])]  # KernelBench's torch.rand, an index
    assert noted(False, rand) == [NONNEGATIVE_NOTE]
    assert noted(False, [torch.rand(8), torch.randn(8)]) == []  # one signed input is enough
    assert noted(True, rand) == []  # our own tasks are validated before they ship


def test_signed_inputs_catch_a_kernel_wrong_only_on_negatives(tmp_path: Path) -> None:
    # KernelBench's own 19_ReLU draws torch.rand: a leaky ReLU (relu_wrong) is right on it.
    task = tmp_path / "19_ReLU_rand.py"
    original = (Path(__file__).parents[1] / "data" / "kernelbench" / "level1" / "19_ReLU.py")
    task.write_text(original.read_text().replace("torch.randn(batch_size, dim)",
                                                 "torch.rand(batch_size, dim)"))
    from kerneltrials.verifier.harness._judge import NONNEGATIVE_NOTE, SIGNED_NOTE

    as_drawn = run(candidate("relu_wrong"), task=task)
    assert as_drawn.status == Status.CORRECT, as_drawn.reasons
    assert NONNEGATIVE_NOTE in as_drawn.reasons
    signed = run(candidate("relu_wrong"), task=task, inputs="signed")
    assert signed.status == Status.INCORRECT, signed.reasons
    assert SIGNED_NOTE in signed.reasons and NONNEGATIVE_NOTE not in signed.reasons
    honest = run(candidate("relu_ok"), task=task, inputs="signed")
    assert honest.status == Status.CORRECT, honest.reasons


def test_an_unknown_inputs_mode_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown inputs 'negative': choose file or signed"):
        run(candidate("relu_ok"), inputs="negative")


def test_a_gpu_sized_kernelbench_file_is_judged_at_the_sizes_derived_for_the_cpu(
        tmp_path: Path) -> None:
    task = tmp_path / "kernelbench" / "level1" / "19_ReLU.py"
    task.parent.mkdir(parents=True)
    original = (Path(__file__).parents[1] / "data" / "kernelbench" / "level1" / "19_ReLU.py")
    task.write_text(original.read_text().replace("dim = 393", "dim = 393216"))  # 6 GiB
    verdict = run(candidate("relu_ok"), task=task)
    assert verdict.status == Status.CORRECT, verdict.reasons
    (note,) = [r for r in verdict.reasons if r.startswith("note:profile:cpu sizes derived")]
    public = verdict.configs[0].params
    assert public["batch_size"] < 4096 and public["dim"] < 393216
    assert f"batch_size={public['batch_size']}" in note and f"dim={public['dim']}" in note
