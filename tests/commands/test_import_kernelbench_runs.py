"""``kerneltrials import kernelbench-runs`` (issue 23): a run folder written by KernelBench's
generate_samples.py, paired with KernelBench's problem files, judged by the full verifier
and stored as a run; ``--static-only`` screens a set without building anything."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kerneltrials.results import open_store
from kerneltrials.scheduler._generations import GenerationsError
from kerneltrials.scheduler._kernelbench_runs import (
    read_claims,
    read_kernelbench_run,
    run_model_name,
)
from tests.scheduler.evalkit import RELU_TASK
from tests.verifier.candidates import candidate

KERNELBENCH = Path(__file__).resolve().parents[1] / "data" / "kernelbench"


def _problems(tmp_path: Path) -> Path:
    problems = tmp_path / "KernelBench"
    (problems / "level1").mkdir(parents=True)
    (problems / "level1" / "19_ReLU.py").write_text(RELU_TASK.format(rows=301))
    (problems / "level1" / "2_Other.py").write_text(RELU_TASK.format(rows=199))
    return problems


def _run_folder(tmp_path: Path, kernels: dict[tuple[int, int], str],
                claims: dict[str, list[dict[str, object]]] | None = None) -> Path:
    run = tmp_path / "runs" / "peer"
    run.mkdir(parents=True)
    for (problem, sample), text in kernels.items():
        (run / f"level_1_problem_{problem}_sample_{sample}_kernel.py").write_text(text)
    (run / "level_1_problem_19_sample_0_prompt.txt").write_text("not a kernel")
    (run / "generation_config.yaml").write_text(
        "level: 1\nmodel_name: 'deepseek-coder'  # the peer's model\nnum_samples: 2\n")
    if claims is not None:
        (run / "eval_results.json").write_text(json.dumps(claims))
    return run


def test_kernels_are_paired_with_their_problems_and_samples_kept(tmp_path: Path) -> None:
    problems = _problems(tmp_path)
    run = _run_folder(tmp_path, {(19, 0): "a", (19, 1): "b", (2, 0): "c", (2, 1): "d"},
                      {"19": [{"sample_id": 0, "compiled": True, "correctness": True},
                              {"sample_id": 1, "compiled": True, "correctness": True}],
                       "2": [{"sample_id": 1, "compiled": False, "correctness": False}]})
    generations = read_kernelbench_run(run, problems)
    assert [(g.task, g.sample, g.custom_code) for g in generations] == [
        ("2_Other", 0, "c"), ("2_Other", 1, "d"), ("19_ReLU", 0, "a"), ("19_ReLU", 1, "b")]
    assert generations[2].ref_code == RELU_TASK.format(rows=301)
    assert run_model_name(run) == "deepseek-coder"
    claims = read_claims(run, generations)
    assert claims is not None and (claims.samples, claims.compiled, claims.correct) == (3, 2, 2)
    # One sample alone: renumbered 0 (a one-shot run), the claims of that sample only.
    only = read_kernelbench_run(run, problems, sample=1)
    assert [(g.task, g.sample, g.custom_code) for g in only] == [("2_Other", 0, "d"),
                                                                  ("19_ReLU", 0, "b")]
    claims = read_claims(run, only, sample=1)
    assert claims is not None and (claims.samples, claims.correct) == (2, 1)


def test_what_cannot_be_paired_is_named(tmp_path: Path) -> None:
    problems = _problems(tmp_path)
    uneven = _run_folder(tmp_path, {(19, 0): "a", (19, 1): "b", (2, 0): "c"})
    with pytest.raises(GenerationsError, match=r"level 1 problem 2 has samples \[0\].*--sample"):
        read_kernelbench_run(uneven, problems)
    (uneven / "level_1_problem_7_sample_0_kernel.py").write_text("x")
    with pytest.raises(GenerationsError, match="level 1 problem 7 under .*level1 .*found none"):
        read_kernelbench_run(uneven, problems, sample=0)
    with pytest.raises(GenerationsError, match="no kernel files of sample 5"):
        read_kernelbench_run(uneven, problems, sample=5)
    with pytest.raises(GenerationsError, match="not a directory"):
        read_kernelbench_run(tmp_path / "missing", problems)
    assert read_claims(uneven, []) is None  # no eval_results.json: nothing claimed


def _import(run: Path, problems: Path, db: Path, *extra: str,
            timeout: int = 800) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "kerneltrials.cli", "import", "kernelbench-runs", str(run),
               "--problems", str(problems), "--db", str(db), "--run", "kb-peer", *extra]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)


#: Two published-set cheats of the kind KernelBench's adversarial tests hold (written here):
#: C++ inside cuda_sources that only allocates or hands back a kept tensor, no kernel.
NO_KERNEL = {
    "zeros": "torch::Tensor run(torch::Tensor a, torch::Tensor b) {\\n"
             "  return torch::zeros({a.size(0), b.size(1)}, a.options());\\n}",
    "kept": "static torch::Tensor kept;\\n"
            "torch::Tensor run(torch::Tensor a, torch::Tensor b) {\\n"
            "  if (!kept.defined()) kept = torch::matmul(a, b);\\n  return kept;\\n}",
}


def _no_kernel_candidate(body: str) -> str:
    return ("import torch\nimport torch.nn as nn\n"
            "from torch.utils.cpp_extension import load_inline\n"
            f'ext = load_inline(name="peer", cpp_sources="torch::Tensor run(torch::Tensor a, '
            f'torch::Tensor b);", cuda_sources="{body}", functions=["run"])\n'
            "class ModelNew(nn.Module):\n    def forward(self, a, b):\n"
            "        return ext.run(a, b)\n")


def test_static_only_screens_kernels_without_a_device_kernel_in_a_second(
        tmp_path: Path) -> None:
    problems = tmp_path / "KernelBench"
    (problems / "level1").mkdir(parents=True)
    matmul = KERNELBENCH / "level1" / "1_Square_matrix_multiplication_.py"
    (problems / "level1" / matmul.name).write_text(matmul.read_text())
    run = _run_folder(tmp_path, {(1, sample): _no_kernel_candidate(body)
                                 for sample, body in enumerate(NO_KERNEL.values())},
                      {"1": [{"sample_id": 0, "compiled": True, "correctness": True}]})
    db = tmp_path / "results.sqlite"
    result = _import(run, problems, db, "--backend", "cuda", "--static-only", "--json",
                     timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    screen = json.loads(result.stdout)
    assert screen["generations"] == 2 and screen["pass_screen"] == 0
    assert screen["first_reasons"] == {"static:no_device_kernel": 2}
    assert screen["claimed"] == {"samples": 1, "compiled": 1, "correct": 1}
    assert all(v["durations_s"]["static"] < 1.0 for v in screen["verdicts"])
    assert not db.exists()  # a screen stores nothing
    # On the cpu backend the rule does not apply: only the library call is caught.
    result = _import(run, problems, db, "--static-only", timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "1 of 2 generations rejected by the static screen alone" in result.stdout
    assert "cpp:library_compute" in result.stdout and "1 of 1 imported samples" in result.stdout


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_run_folder_becomes_a_best_of_n_run_of_the_peer_model(tmp_path: Path) -> None:
    problems = _problems(tmp_path)
    run = _run_folder(tmp_path, {(19, 0): candidate("relu_wrong"), (19, 1): candidate("relu_ok"),
                                 (2, 0): "class ModelNew(:\n", (2, 1): "not python\n"},
                      {"19": [{"sample_id": 0, "compiled": True, "correctness": True}]})
    db = tmp_path / "results.sqlite"
    result = _import(run, problems, db, "--backend", "cpu", "--executor", "local", "--quick",
                     "--no-compile-baseline", "--json", "--tasks-dir", str(tmp_path / "tasks"))
    assert result.returncode == 0, result.stderr[-3000:]
    summary = json.loads(result.stdout)
    assert summary["status"] == "finished" and summary["generations"] == 4
    assert summary["claimed"] == {"samples": 1, "compiled": 1, "correct": 1}
    store = open_store(db)
    stored = store.get_run("kb-peer")
    assert stored.model == "deepseek-coder" and stored.status == "finished"  # from its config
    statuses = {(a.task_id, a.sample): a.status for a in store.attempts_for_run(stored)}
    assert statuses == {("kb/L1/19_ReLU", 0): "incorrect", ("kb/L1/19_ReLU", 1): "correct",
                        ("kb/L1/2_Other", 0): "compile_error",
                        ("kb/L1/2_Other", 1): "rejected"}
