"""SIGTERM to ``kerneltrials check`` mid-check ends every job it started, frozen ones
included, instead of leaving them (and their memory) to the next harness's sweep."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import kerneltrials

#: Alone: any other test that makes a job cgroup sweeps orphans, which would end this
#: check's jobs for it and hide a harness that left them behind.
pytestmark = [pytest.mark.timeout(180), pytest.mark.alone]

SOLUTION = Path(kerneltrials.__file__).parent / "tasks" / "reference" / "level1" / "softmax.py"


def job_processes(harness_pid: int) -> list[int]:
    """Processes in a job cgroup of ``harness_pid`` (their names carry the owner's pid)."""
    marker = f"-worker-{harness_pid}-"
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if marker in (entry / "cgroup").read_text():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def test_sigterm_mid_check_ends_the_jobs_and_exits_143() -> None:
    harness = subprocess.Popen(
        [sys.executable, "-m", "kerneltrials.cli", "check", "L1/softmax", str(SOLUTION),
         "--backend", "cpu"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 120
        while not job_processes(harness.pid):
            if harness.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"no job started: {harness.communicate()[0][-2000:]}")
            time.sleep(0.2)
        time.sleep(3)  # into the check: workers loaded, the candidate's frozen at rest
        assert job_processes(harness.pid)
        os.kill(harness.pid, signal.SIGTERM)
        output, _ = harness.communicate(timeout=60)
    finally:
        if harness.poll() is None:
            harness.kill()
    assert harness.returncode == 128 + signal.SIGTERM, output[-2000:]
    left = job_processes(harness.pid)
    deadline = time.monotonic() + 5
    while left and time.monotonic() < deadline:  # killed jobs may take a moment to go
        time.sleep(0.2)
        left = job_processes(harness.pid)
    assert not left, f"jobs left behind: {left}"
