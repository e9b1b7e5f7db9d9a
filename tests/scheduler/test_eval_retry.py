"""An ``error`` verdict is the machine's fault: ``eval`` verifies the attempt again.

The failure is injected through a real seam: an executor registered in ``EXECUTORS`` (as a
plug-in would be) whose node gate cannot hand out a lease while "the node is down". The
build, the run and the store are the real ones.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from kerneltrials.results import open_store
from kerneltrials.scheduler import EXECUTORS, EvalConfig, LocalExecutor, run_eval
from kerneltrials.scheduler._gate import LocalGate
from kerneltrials.tasks import TaskSpec, load_task
from kerneltrials.verifier import CheckOptions, Verdict
from tests.scheduler.evalkit import RELU_TASK, write_replay, write_tasks
from tests.timings import ONE_CALL_TIMING

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

CHECK = CheckOptions(timing=ONE_CALL_TIMING, compile_baseline=False, seeds=1, call_timeout_s=60)


class DownGate(LocalGate):
    """A node gate whose first ``outages`` lease requests fail, as on a node going down."""

    outages = 0

    def acquire(self, exclusive: bool, pid: int | None = None) -> str:
        if DownGate.outages > 0:
            DownGate.outages -= 1
            raise OSError("node gate unreachable")
        return super().acquire(exclusive, pid)


@EXECUTORS.register("test-down-gate")
class DownGateExecutor(LocalExecutor):
    """The local executor on a ``DownGate``; remembers every verdict it returned."""

    verdicts: list[Verdict] = []

    def __init__(self, options: CheckOptions) -> None:
        super().__init__(options)
        self.gate = DownGate()

    def verify(self, task: TaskSpec, source: str, hidden_seed: int | None = None,
               profile: bool = False) -> Verdict:
        try:
            verdict = super().verify(task, source, hidden_seed, profile)
        except OSError:
            DownGateExecutor.verdicts.append(Verdict.infrastructure_error(task, "cpu", "mixed"))
            raise
        DownGateExecutor.verdicts.append(verdict)
        return verdict


@pytest.fixture(autouse=True)
def fresh_gate() -> None:
    DownGate.outages = 0
    DownGateExecutor.verdicts = []


def _eval(tmp_path: Path, replies: dict[Path, str | None], run: str, retries: int = 2) -> object:
    replay = write_replay(tmp_path / f"{run}.jsonl",
                          {f"path:{path.stem}": function for path, function in replies.items()})
    config = EvalConfig(model=f"replay:{replay}", tasks=",".join(str(p) for p in replies),
                        db=str(tmp_path / "db.sqlite"), run_name=run, executor="test-down-gate",
                        hidden_seed=4, max_concurrency=1, check=CHECK, error_retries=retries,
                        retry_backoff_s=0.05)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the scripted prompts "drift": expected
        return run_eval(config)


def test_an_error_verdict_is_retried_and_the_retry_decides(tmp_path: Path) -> None:
    ok, wrong = write_tasks(tmp_path, {"retry_ok": 103, "retry_wrong": 107})
    DownGate.outages = 1  # the first lease request of the run fails
    summary = _eval(tmp_path, {ok: "relu_ok", wrong: "relu_wrong"}, "flaky")
    attempts = {a.task_id: a for a in open_store(tmp_path / "db.sqlite").attempts_for_run("flaky")}
    assert attempts["path:retry_ok"].status == "correct"
    assert attempts["path:retry_wrong"].status == "incorrect"
    # three verifications: the failed one, its retry, and the candidate failure (never retried)
    assert [str(v.status) for v in DownGateExecutor.verdicts].count("error") == 1
    assert len(DownGateExecutor.verdicts) == 3
    notes = [r for a in attempts.values() for r in a.verdict.reasons if "retried" in r]
    assert notes == ["harness:retried=1 after harness:executor_failed"]
    assert summary.score.to_json()["excluded"] == {}  # nothing was left as the machine's fault


def test_an_error_that_persists_is_stored_as_error_and_not_charged(tmp_path: Path) -> None:
    (path,) = write_tasks(tmp_path, {"retry_down": 109})
    DownGate.outages = 10**6  # the node never comes back
    summary = _eval(tmp_path, {path: "relu_ok"}, "down", retries=2)
    (attempt,) = open_store(tmp_path / "db.sqlite").attempts_for_run("down")
    assert attempt.status == "error" and len(DownGateExecutor.verdicts) == 3  # 1 + 2 retries
    assert attempt.verdict.reasons[0].startswith("harness:executor_failed:OSError(")
    assert attempt.verdict.reasons[-1] == (
        "harness:retried=2 after harness:executor_failed, harness:executor_failed")
    assert attempt.verdict.policy == load_task(str(path)).default_policy()
    report = summary.score.to_json()
    # excluded, not failed: with no other task there is nothing to score at all
    assert report["excluded"] == {"error": 1} and report["fast_p"]["0"] is None


def test_a_reply_without_code_is_stored_under_the_tasks_policy(tmp_path: Path) -> None:
    strict = tmp_path / "strict_relu.py"
    strict.write_text(RELU_TASK.format(rows=113).replace(
        '"tags": ["activation"]', '"tags": ["activation"], "policy": "strict"'))
    assert load_task(str(strict)).default_policy() == "strict"
    _eval(tmp_path, {strict: None}, "no-code")
    (attempt,) = open_store(tmp_path / "db.sqlite").attempts_for_run("no-code")
    assert attempt.status == "incorrect" and attempt.verdict.reasons == ["agent:no_code"]
    assert attempt.verdict.policy == "strict" and DownGateExecutor.verdicts == []
