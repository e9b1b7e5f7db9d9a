"""``kerneltrials eval`` stopped by a signal (issue 22): the first SIGINT or SIGTERM
cancels the verification in flight (its jobs killed, its attempt not stored), marks the
run ``interrupted`` with the reason, prints the exact ``--resume`` command and exits
128 + the signal; the resumed run then matches an uninterrupted one."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from kerneltrials.results import open_store
from tests.scheduler.evalkit import write_replay, write_tasks

pytestmark = [pytest.mark.slow]


def _eval(tmp_path: Path, selector: str, replay: Path, db: Path, run: str, executor: str,
          resume: bool = False) -> list[str]:
    command = [sys.executable, "-m", "kerneltrials.cli", "eval", "--model", f"replay:{replay}",
               "--tasks", selector, "--db", str(db), "--run", run, "--quick",
               "--no-compile-baseline", "--hidden-seed", "5", "--max-concurrency", "1",
               "--executor", executor, "--json"]
    return command + (["--resume"] if resume else [])


def _env(tmp_path: Path) -> dict[str, str]:
    # Every scratch directory of the run under tmp_path: a job left running would show
    # as a process whose working directory is there.
    # Ray's own files stay in /tmp: its socket paths must fit in 107 bytes.
    scratch = tmp_path / "scratch"
    scratch.mkdir(exist_ok=True)
    return {**os.environ, "TMPDIR": str(scratch), "RAY_TMPDIR": "/tmp"}


def _attempts(db: Path) -> int:
    try:
        with sqlite3.connect(db) as connection:
            return int(connection.execute("SELECT count(*) FROM attempts").fetchone()[0])
    except sqlite3.Error:
        return 0


def _wait_until(predicate, process: subprocess.Popen, limit_s: float, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline and process.poll() is None:
        if predicate():
            return
        time.sleep(0.3)
    if process.poll() is not None:
        _, stderr = process.communicate()
        raise AssertionError(f"{what}: eval exited {process.returncode} first\n{stderr[-3000:]}")
    raise AssertionError(f"{what} did not happen in {limit_s} s")


def _processes_under(directory: Path) -> list[str]:
    """Processes whose working directory is in ``directory``: the run's jobs (each starts
    in its scratch directory)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if cwd.startswith(str(directory)):
            found.append(f"{entry.name}: {(entry / 'cmdline').read_bytes()[:120]!r}")
    return found


def _run_and_interrupt(command: list[str], tmp_path: Path,
                       in_flight: Callable[[subprocess.Popen], None],  # type: ignore[type-arg]
                       signum: int) -> tuple[int, float, dict]:  # type: ignore[type-arg]
    """Start ``eval``, wait until ``in_flight`` says the moment has come, send ``signum``;
    the exit code, the seconds from the signal to the exit, the ``--json`` summary."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=_env(tmp_path), start_new_session=True)
    try:
        in_flight(process)
        return _interrupt(process, signum)
    finally:
        _kill_group(process.pid)


def _interrupt(process: subprocess.Popen, signum: int) -> tuple[int, float, dict]:
    sent = time.monotonic()
    os.kill(process.pid, signum)
    stdout, stderr = process.communicate(timeout=120)
    elapsed = time.monotonic() - sent
    assert "Traceback" not in stderr and "SIGTERM received" not in stderr, stderr[-3000:]
    return process.returncode, elapsed, json.loads(stdout)


@pytest.mark.timeout(1200)
def test_sigint_cancels_the_job_in_flight_marks_the_run_and_resumes_exactly(
        tmp_path: Path) -> None:
    paths = write_tasks(tmp_path, {"relu_a": 301, "relu_hang_task": 211, "relu_d": 173})
    ids = [f"path:{p.stem}" for p in paths]
    replay = write_replay(tmp_path / "model.jsonl", dict(zip(ids, ["relu_ok", "relu_hang",
                                                                    "relu_ok"], strict=True)))
    db = tmp_path / "results.sqlite"
    selector = ",".join(str(p) for p in paths)

    def in_flight(process: subprocess.Popen) -> None:  # type: ignore[type-arg]
        _wait_until(lambda: _attempts(db) >= 1, process, 600, "the first attempt")
        # The hanging candidate's verification is the one in flight now: give it time to
        # get its jobs started (it would hang for call_timeout_s, 60 s, if not cancelled).
        _wait_until(lambda: bool(_processes_under(tmp_path / "scratch")), process, 120,
                    "the next verification's jobs")
        time.sleep(3)

    code, elapsed, summary = _run_and_interrupt(
        _eval(tmp_path, selector, replay, db, "sig", "ray"), tmp_path, in_flight, signal.SIGINT)
    print(f"SIGINT to exit (Ray): {elapsed:.1f} s")
    assert code == 130, summary
    assert elapsed < 45, f"SIGINT took {elapsed:.1f} s to end the run"
    assert summary["status"] == "interrupted" and summary["stop_reason"] == "interrupted by SIGINT"
    assert summary["resume"] == f"kerneltrials eval --resume --run sig --db {db}"
    assert summary["episodes"][ids[1]] == "interrupted"
    store = open_store(db)
    run = store.get_run("sig")
    assert (run.status, run.stop_reason) == ("interrupted", "interrupted by SIGINT")
    assert [a.task_id for a in store.attempts_for_run(run)] == [ids[0]]  # nothing of the cut one
    assert store.finished_episodes(run) == {ids[0]}
    assert store.integrity_check() == "ok"
    time.sleep(2)
    assert _processes_under(tmp_path / "scratch") == []  # every job of the run is gone

    # Resumed (the hang replaced by a correct reply), the run ends as one uninterrupted.
    write_replay(replay, dict(zip(ids, ["relu_ok", "relu_ok", "relu_ok"], strict=True)))
    resumed = subprocess.run(_eval(tmp_path, selector, replay, db, "sig", "ray", resume=True),
                             capture_output=True, text=True, timeout=900, env=_env(tmp_path))
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert json.loads(resumed.stdout)["status"] == "finished"
    assert "Token authentication is enabled" not in resumed.stderr  # Ray's notice, dropped
    store = open_store(db)
    statuses = {a.task_id: a.status for a in store.attempts_for_run("sig")}
    assert statuses == dict.fromkeys(ids, "correct")
    run = store.get_run("sig")
    assert (run.status, run.stop_reason) == ("finished", None)


@pytest.mark.timeout(600)
def test_sigterm_on_the_local_executor_kills_the_hanging_job_and_exits_143(
        tmp_path: Path) -> None:
    paths = write_tasks(tmp_path, {"relu_hang_task": 211})
    ids = [f"path:{p.stem}" for p in paths]
    replay = write_replay(tmp_path / "model.jsonl", {ids[0]: "relu_hang"})
    db = tmp_path / "results.sqlite"

    def in_flight(process: subprocess.Popen) -> None:  # type: ignore[type-arg]
        _wait_until(lambda: len(_processes_under(tmp_path / "scratch")) >= 2, process, 300,
                    "the candidate's jobs")
        time.sleep(5)

    code, elapsed, summary = _run_and_interrupt(
        _eval(tmp_path, str(paths[0]), replay, db, "term", "local"), tmp_path, in_flight,
        signal.SIGTERM)
    print(f"SIGTERM to exit (local): {elapsed:.1f} s")
    assert code == 143, summary
    assert elapsed < 30, f"SIGTERM took {elapsed:.1f} s to end the run"
    assert summary["status"] == "interrupted" and summary["stop_reason"] == "interrupted by SIGTERM"
    store = open_store(db)
    assert store.get_run("term").status == "interrupted"
    assert store.attempts_for_run("term") == []
    time.sleep(1)
    assert _processes_under(tmp_path / "scratch") == []


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
