"""``kerneltrials eval`` on a real local Ray: scripted replay models, resume, lost workers."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from kerneltrials.results import open_store
from kerneltrials.scheduler import EvalConfig, run_eval
from kerneltrials.tasks import load_task
from kerneltrials.verifier import QUICK_TIMING, CheckOptions
from tests.scheduler.evalkit import write_replay, write_tasks

pytestmark = [pytest.mark.slow, pytest.mark.ray]

QUICK = CheckOptions(timing=QUICK_TIMING, compile_baseline=False, call_timeout_s=60)


@pytest.fixture(scope="module")
def workload(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    directory = tmp_path_factory.mktemp("eval")
    paths = write_tasks(directory, {"relu_a": 301, "relu_b": 257, "relu_c": 199, "relu_d": 173})
    ids = [f"path:{p.stem}" for p in paths]
    replies = dict(zip(ids, ["relu_ok", "relu_wrong", None, "relu_ok"], strict=True))
    replay = write_replay(directory / "model.jsonl", replies)
    expected = {ids[0]: "correct", ids[1]: "incorrect", ids[2]: "incorrect", ids[3]: "correct"}
    return {"selector": ",".join(str(p) for p in paths), "replay": replay, "expected": expected,
            "ids": ids, "paths": paths}


def _statuses(db: Path, run: str) -> dict[tuple[str, int, int], str]:
    store = open_store(db)
    return {(a.task_id, a.round, a.sample): a.status for a in store.attempts_for_run(run)}


@pytest.mark.timeout(900)
def test_eval_with_a_scripted_replay_model_on_ray(workload: dict, tmp_path: Path) -> None:
    db = tmp_path / "results.sqlite"
    config = EvalConfig(model=f"replay:{workload['replay']}", tasks=workload["selector"],
                        db=str(db), run_name="scripted", hidden_seed=5, check=QUICK,
                        max_concurrency=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the scripted prompts "drift": expected
        summary = run_eval(config)
    assert summary.status == "finished"
    statuses = _statuses(db, "scripted")
    assert {task: status for (task, _, _), status in statuses.items()} == workload["expected"]
    store = open_store(db)
    run = store.get_run("scripted")
    assert run.status == "finished" and run.hidden_seed == 5
    assert run.task_ids == workload["ids"]
    no_code = [a for a in store.attempts_for_run(run) if a.task_id == workload["ids"][2]][0]
    assert "agent:no_code" in no_code.verdict.reasons
    assert no_code.verdict.policy == load_task(str(workload["paths"][2])).default_policy()
    assert sum(a.cost_usd or 0 for a in store.attempts_for_run(run)) == pytest.approx(0.04)
    assert summary.score.to_json()["fast_p"]["0"] == pytest.approx(0.5)
    assert {s.baseline for s in store.load_scores(run)} == {"eager", "compile"}


def _eval_command(workload: dict, db: Path, run: str, resume: bool = False) -> list[str]:
    command = [sys.executable, "-m", "kerneltrials.cli", "eval", "--model",
               f"replay:{workload['replay']}", "--tasks", str(workload["selector"]), "--db",
               str(db), "--run", run, "--quick", "--no-compile-baseline", "--hidden-seed", "5",
               "--max-concurrency", "1", "--json"]
    return command + (["--resume"] if resume else [])


def _wait_for_attempts(db: Path, count: int, process: subprocess.Popen, limit_s: float) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with sqlite3.connect(db) as connection:
                if connection.execute("SELECT count(*) FROM attempts").fetchone()[0] >= count:
                    return
        except sqlite3.Error:
            pass
        time.sleep(0.5)
    raise AssertionError(f"eval did not record {count} attempt(s) in {limit_s} s")


@pytest.mark.timeout(1200)
def test_eval_killed_half_way_and_resumed_matches_an_uninterrupted_run(
        workload: dict, tmp_path: Path) -> None:
    db = tmp_path / "results.sqlite"
    process = subprocess.Popen(_eval_command(workload, db, "interrupted"), start_new_session=True,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        _wait_for_attempts(db, 2, process, limit_s=600)
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        _kill_group(process.pid)
    partial = _statuses(db, "interrupted")
    assert 2 <= len(partial) < 4, "the kill must land half-way"
    resumed = subprocess.run(_eval_command(workload, db, "interrupted", resume=True),
                             capture_output=True, text=True, timeout=900)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert json.loads(resumed.stdout)["status"] == "finished"
    final = _statuses(db, "interrupted")
    assert {task: s for (task, _, _), s in final.items()} == workload["expected"]
    assert len(final) == 4  # none duplicated (the store's key is unique) and none missing
    assert all(final[key] == status for key, status in partial.items())


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _ray_run_workers() -> set[int]:
    """PIDs of this test's Ray workers executing a run job: processes titled
    ``ray::_remote_run`` whose parent is a raylet (a child the worker is forking for a
    sandboxed job carries the title until it execs, and must not be taken for a worker),
    descendants of this process (a suite running beside this one keeps its workers)."""
    pids = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and _is_run_worker(int(entry.name)):
            pids.add(int(entry.name))
    return pids


def _is_run_worker(pid: int) -> bool:
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
        parent = _parent(pid)
        parent_command = Path(f"/proc/{parent}/cmdline").read_bytes()
    except (OSError, ValueError):
        return False
    return (command.startswith(b"ray::_remote_run") and b"raylet" in parent_command
            and _descends_from_us(pid))


def _parent(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rindex(")") + 2:].split()[1])  # the field after the state


def _descends_from_us(pid: int) -> bool:
    ours = os.getpid()
    while pid > 1:
        if pid == ours:
            return True
        try:
            pid = _parent(pid)
        except (OSError, ValueError):
            return False
    return False


def _kill_next_run_worker(killed: set[int], limit_s: float) -> int:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        fresh = _ray_run_workers() - killed
        if fresh:
            pid = fresh.pop()
            time.sleep(2.0)  # let it get into the job
            if not _is_run_worker(pid):  # it finished, or the pid is another process's now
                killed.add(pid)
                continue
            os.kill(pid, signal.SIGKILL)
            killed.add(pid)
            return pid
        time.sleep(0.2)
    raise AssertionError("no Ray run job appeared")


@pytest.mark.timeout(900)
def test_a_worker_killed_mid_job_is_retried_then_recorded_as_error(tmp_path: Path) -> None:
    """Ray retries a lost job once; eval then verifies the attempt again (here once more),
    and only when that is lost too is the attempt stored as ``error``."""
    import threading

    (path,) = write_tasks(tmp_path, {"relu_hang_task": 211})
    replay = write_replay(tmp_path / "model.jsonl", {f"path:{path.stem}": "relu_hang"})
    db = tmp_path / "results.sqlite"
    config = EvalConfig(model=f"replay:{replay}", tasks=str(path), db=str(db), run_name="lost",
                        check=CheckOptions(timing=QUICK_TIMING, compile_baseline=False,
                                           call_timeout_s=240, run_timeout_s=600),
                        error_retries=1, retry_backoff_s=0.1)
    result: dict[str, object] = {}

    def evaluate() -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result["summary"] = run_eval(config)

    thread = threading.Thread(target=evaluate, daemon=True)
    thread.start()
    killed: set[int] = set()
    _kill_next_run_worker(killed, limit_s=300)  # the first try
    _kill_next_run_worker(killed, limit_s=300)  # Ray's one retry
    _kill_next_run_worker(killed, limit_s=300)  # eval's retry of the error verdict
    _kill_next_run_worker(killed, limit_s=300)  # and Ray's retry of that
    thread.join(timeout=300)
    assert not thread.is_alive(), "eval did not finish after the retry was lost"
    (attempt,) = open_store(db).attempts_for_run("lost")
    assert attempt.status == "error"
    assert any(r.startswith("harness:worker_lost") for r in attempt.verdict.reasons), (
        attempt.verdict.reasons)
    assert attempt.verdict.reasons[-1] == "harness:retried=1 after harness:worker_lost"
    assert result["summary"].score.to_json()["excluded"] == {"error": 1}
