"""Several real processes writing one store, and a writer SIGKILLed mid-run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kerneltrials.results import open_store

WRITER = Path(__file__).with_name("writer_process.py")


def start_writer(
    db: Path,
    run: str,
    worker: str,
    count: int,
    source_bytes: int = 16,
) -> subprocess.Popen[str]:
    """A separate Python process recording attempts (see writer_process.py)."""
    return subprocess.Popen(
        [sys.executable, str(WRITER), str(db), run, worker, str(count), str(source_bytes)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(processes: list[subprocess.Popen[str]]) -> list[list[str]]:
    """Wait for every writer; each must exit 0. Returns their output lines."""
    outputs = []
    for process in processes:
        stdout, stderr = process.communicate(timeout=120)
        assert process.returncode == 0, stderr
        outputs.append(stdout.split("\n")[:-1])
    return outputs


@pytest.mark.timeout(180)
def test_concurrent_writers_on_a_fresh_file_lose_nothing(tmp_path: Path) -> None:
    db = tmp_path / "shared.sqlite"  # not created yet: the writers race on the schema too
    writers = [start_writer(db, "r1", str(worker), 15) for worker in range(3)]
    writers.append(start_writer(db, "r2", "9", 15))
    outputs = finish(writers)
    assert [len(lines) for lines in outputs] == [15] * 4
    assert {line.split()[0] for lines in outputs for line in lines} == {"ok"}
    with open_store(db) as store:
        assert store.integrity_check() == "ok"
        attempts = store.attempts_for_run("r1")
        assert len(attempts) == 45
        assert len({a.key for a in attempts}) == 45
        assert len(store.attempts_for_run("r2")) == 15


@pytest.mark.timeout(180)
def test_concurrent_writers_of_the_same_keys_store_each_once(tmp_path: Path) -> None:
    db = tmp_path / "same.sqlite"
    outputs = finish([start_writer(db, "r1", "same", 20) for _ in range(3)])
    lines = [line for output in outputs for line in output]
    assert sum(line.startswith("ok") for line in lines) == 20  # exactly one winner per key
    assert sum(line.startswith("exists") for line in lines) == 40
    with open_store(db) as store:
        assert sorted(a.task_id for a in store.attempts_for_run("r1")) == sorted(
            f"L1/t{i}" for i in range(20)
        )


def kill_after(process: subprocess.Popen[str], committed: int, extra_delay_s: float) -> int:
    """SIGKILL the writer once it reported ``committed`` attempts (plus a delay).

    Returns:
        How many commits it had reported when it was killed.
    """
    reported = 0
    assert process.stdout is not None
    while reported < committed:
        line = process.stdout.readline()
        assert line, f"writer died early: {process.stderr.read() if process.stderr else ''}"
        reported += 1
    time.sleep(extra_delay_s)
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    reported += len(process.stdout.read().split("\n")) - 1  # lines it printed meanwhile
    return reported


@pytest.mark.timeout(180)
@pytest.mark.parametrize("extra_delay_s", [0.0, 0.013, 0.05])
def test_a_sigkilled_writer_leaves_a_consistent_store(tmp_path: Path, extra_delay_s: float) -> None:
    db = tmp_path / "killed.sqlite"
    # large sources make each commit span many pages, so the kill lands mid-write
    process = start_writer(db, "r1", "0", -1, source_bytes=300_000)
    reported = kill_after(process, 10, extra_delay_s)
    assert process.returncode == -signal.SIGKILL
    with open_store(db) as store:
        assert store.integrity_check() == "ok"
        attempts = store.attempts_for_run("r1")
        # every reported commit survived; at most the one in flight also landed
        assert reported <= len(attempts) <= reported + 1
        for attempt in attempts:  # no torn rows: columns agree with the verdict JSON
            assert attempt.source is not None and len(attempt.source) == 300_000
            assert attempt.speedup == attempt.verdict.speedup
            assert json.loads(attempt.verdict.to_json())["task"] == attempt.task_id
        # and the store takes new writes (a resume)
        keys = store.finished_keys("r1")
        store.record_attempt(
            "r1", "L1/after", {"task": "L1/after", "backend": "cpu", "status": "timeout"}
        )
        assert len(store.finished_keys("r1")) == len(keys) + 1
