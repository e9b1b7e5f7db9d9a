"""The candidate's output directory is a filesystem of its own size, on each backend.

``RLIMIT_FSIZE`` caps one file, not how many: a native loop of ``posix_fallocate``
(``tests/verifier/native_disk/fallocate_flood.py``) would take the shared scratch disk
from every other check on the machine faster than anything could watch. With the quota
(``kerneltrials/_tmpfs.py``, mounted by the root harness over ``candidate-out/``) the
kernel refuses its writes at the quota and the flood is still the candidate's rejection;
the control, without the quota, shows the same candidate taking all it asked for.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from dataclasses import replace
from pathlib import Path

import pytest

import kerneltrials
from kerneltrials._tmpfs import mounts_under
from kerneltrials.tasks import load_task
from kerneltrials.verifier import QUICK_TIMING, CheckOptions, Status, Verdict
from kerneltrials.verifier.harness import _output_quota, _session

pytestmark = pytest.mark.timeout(300)

FLOOD = (Path(__file__).parent.parent / "verifier" / "native_disk" / "fallocate_flood.py").read_text()
MIB = 1024**2
# Small files and quota keep the control cheap; the link policy would reject the file
# calls before any run (the quota is what is tested).
OPTIONS = CheckOptions(timing=QUICK_TIMING, compile_baseline=False, call_timeout_s=60,
                       hidden_seed=7, source_scans=False, link_policy=False,
                       max_file_bytes=256 * MIB)
FLOOD_MIB = 64 * 32  # what the candidate asks for: 64 files of 32 MiB


def _verify(sandbox: str) -> Verdict:
    return kerneltrials.check("L1/relu", FLOOD, options=replace(OPTIONS, sandbox=sandbox))


def _held_mib(verdict: Verdict) -> int:
    assert verdict.status == Status.REJECTED, verdict.reasons
    flood = next(r for r in verdict.reasons if r.startswith("sandbox:disk_flood:"))
    match = re.search(r"held (\d+) MiB", flood)
    assert match is not None, flood
    return int(match[1])


@pytest.mark.slow
def test_a_fallocate_flood_stops_at_the_quota(check_sandbox: str) -> None:
    verdict = _verify(check_sandbox)
    quota = OPTIONS.output_quota_bytes()
    assert verdict.isolation["output_quota_bytes"] == quota, verdict.isolation
    assert _held_mib(verdict) <= quota // MIB < FLOOD_MIB


@pytest.mark.slow
def test_without_the_quota_the_flood_takes_the_shared_disk(
        check_sandbox: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_output_quota, "mount_tmpfs", lambda *args: "turned off by the test")
    verdict = _verify(check_sandbox)
    assert verdict.isolation["output_quota_bytes"] is None
    assert verdict.isolation["output_quota_missing"] == "turned off by the test"
    assert _held_mib(verdict) >= FLOOD_MIB


def _a_dead_pid() -> int:
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting needs root")
def test_a_job_that_does_not_see_the_mount_gets_the_directory_under_it() -> None:
    # As a container engine whose mount namespace receives no new host mounts: a process
    # in a private namespace made before the check's mount binds the directory under it.
    # The parent must then read where that job writes, and say the quota did not hold.
    blind = subprocess.Popen(["unshare", "-m", "--propagation", "private", "sleep", "60"])
    try:
        while Path(f"/proc/{blind.pid}/comm").read_text().strip() != "sleep":
            time.sleep(0.01)  # its namespace is made before it runs sleep
        session = _session.Session(task=load_task("L1/relu"), source="", options=OPTIONS,
                                    configs=[], hidden_seed=7)
        try:
            out = session.root / "candidate-out"
            assert mounts_under(out) == [out]
            session.confirm_output_quota([os.getpid()])  # the control: it sees the mount
            assert session.isolation["output_quota_bytes"] == OPTIONS.output_quota_bytes()
            assert _output_quota._unseen_mount(out, [_a_dead_pid()]) == (
                "no process of the job could be looked into")  # unknown is not seen
            session.confirm_output_quota([os.getpid(), blind.pid])
            assert session.isolation["output_quota_bytes"] is None
            assert "does not receive" in session.isolation["output_quota_missing"]
            assert mounts_under(out) == [] and os.stat(out).st_mode & 0o1777 == 0o1777
        finally:
            session.close()
    finally:
        blind.kill()
        blind.wait()


def test_the_quota_is_on_for_the_cpu_backend_and_off_on_cuda_unless_asked() -> None:
    assert CheckOptions().resolved_output_quota()
    assert not CheckOptions(backend="cuda").resolved_output_quota()
    assert CheckOptions(backend="cuda", output_quota=True).resolved_output_quota()
    session = _session.Session(task=load_task("L1/relu"), source="",
                               options=replace(OPTIONS, output_quota=False), configs=[],
                               hidden_seed=7)
    try:
        out = session.root / "candidate-out"
        assert mounts_under(out) == []
        assert session.output_quota == {"output_quota_bytes": None,
                                        "output_quota_missing": "off (CheckOptions.output_quota)"}
    finally:
        session.close()
