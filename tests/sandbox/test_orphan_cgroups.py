"""A harness killed outright leaves its jobs' cgroups behind, a frozen job in them frozen
for ever; the next harness to make a cgroup sweeps them (sandbox/_cgroups.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kerneltrials.sandbox import SandboxLimits
from kerneltrials.sandbox._cgroups import (
    create_job_cgroup,
    find_cgroup_parents,
    sweep_orphan_cgroups,
)

#: Alone: any other test that makes a job cgroup sweeps orphans too, and would kill this
#: test's orphan between its owner's death and the sweep this test watches.
pytestmark = [pytest.mark.timeout(60), pytest.mark.alone]

#: The owner: makes a job cgroup, starts a process in it, freezes it, says so, waits.
OWNER = r"""
import subprocess, sys, time
from kerneltrials.sandbox import SandboxLimits
from kerneltrials.sandbox._cgroups import create_job_cgroup
cgroup, missing = create_job_cgroup("orphan-test", SandboxLimits(max_processes=8))
job = subprocess.Popen(["sleep", "600"], preexec_fn=cgroup.enter)
freezer = cgroup.freezer()
if freezer is not None:
    freezer.freeze(5.0)
print(next(iter(cgroup.dirs.values())).name, job.pid, freezer is not None, flush=True)
time.sleep(600)
"""


def _state(pid: int) -> str | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    return next(line.split()[1] for line in status.splitlines() if line.startswith("State:"))


def test_a_dead_harnesss_frozen_job_is_killed_and_its_cgroup_removed() -> None:
    parents, reason = find_cgroup_parents()
    if parents is None:
        pytest.skip(reason)
    owner = subprocess.Popen([sys.executable, "-c", OWNER], stdout=subprocess.PIPE, text=True)
    name, job_pid, frozen = owner.stdout.readline().split()  # type: ignore[union-attr]
    job = int(job_pid)
    mine, _ = create_job_cgroup("still-owned", SandboxLimits())  # this live process's
    assert mine is not None
    try:
        assert _state(job) in ("S", "D")  # asleep, or frozen
        assert name not in sweep_orphan_cgroups(parents)  # its maker is alive: kept
        os.kill(owner.pid, signal.SIGKILL)
        owner.wait(timeout=10)
        time.sleep(0.5)
        if frozen == "True":  # the owner's death did not wake it: it would stay for ever
            assert _state(job) == "D" or _state(job) == "S"
        swept = sweep_orphan_cgroups(parents)
        assert name in swept
        mine_name = next(iter(mine.dirs.values())).name
        assert mine_name not in swept
        deadline = time.monotonic() + 5
        while _state(job) not in (None, "Z") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _state(job) in (None, "Z"), _state(job)
        assert not any((parent / name).exists() for parent in parents.values())
    finally:
        mine.kill_all()
        mine.remove()
        if owner.poll() is None:
            owner.kill()
