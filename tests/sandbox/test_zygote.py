"""A job the zygote forks is the job bwrap would have exec'd: same user, capabilities,
namespaces, view, cgroups, limits, descriptors and environment, read from inside the job
(``kerneltrials.sandbox._facts``); its end is reported truthfully and nothing outlives it.

Needs what the zygote needs: bwrap, a job cgroup and a root harness; skipped elsewhere.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from kerneltrials.sandbox import JobSpec, SandboxLimits, build_job_env
from kerneltrials.sandbox._facts import host_namespaces
from kerneltrials.sandbox._namespaces import probe_level
from kerneltrials.sandbox._process import ProcessSandbox
from kerneltrials.sandbox.zygote._client import ZYGOTE_ENV

FACTS = "kerneltrials.sandbox._facts"
RUN_CODE = "kerneltrials.sandbox._run_code"

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or probe_level("bwrap") is not None,
    reason="the zygote joins a bwrap sandbox's namespaces: needs root and bwrap")


@pytest.fixture
def sandbox() -> ProcessSandbox:
    found = ProcessSandbox(isolation="bwrap")
    if not found.use_cgroups:
        pytest.skip("no job cgroup here")
    return found


def _spec(scratch: Path, module: str, *args: str, preload: bool = True,
          limits: SandboxLimits | None = None) -> JobSpec:
    return JobSpec(argv=[sys.executable, "-m", module, *args], env=build_job_env(),
                   scratch_dir=scratch, limits=limits or SandboxLimits(wall_timeout_s=60),
                   label="zygote test", preload=module if preload else None)


def _facts(sandbox: ProcessSandbox, scratch: Path, forked: bool,
           monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, object], dict[str, object]]:
    monkeypatch.setenv(ZYGOTE_ENV, "1" if forked else "0")
    job = sandbox.start(_spec(scratch, FACTS, json.dumps(host_namespaces())))
    info = job.wait()
    assert info is not None and info.returncode == 0, info
    return json.loads(info.stdout.strip().splitlines()[-1]), job.isolation


def test_a_forked_job_is_the_job_bwrap_would_start(sandbox: ProcessSandbox, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    scratch = tmp_path / "scratch"
    forked, forked_isolation = _facts(sandbox, scratch, True, monkeypatch)
    execd, execd_isolation = _facts(sandbox, scratch, False, monkeypatch)
    assert forked_isolation.get("started_by") == "zygote"
    assert "started_by" not in execd_isolation
    assert forked == execd
    # And what both are: nobody, no capability, every namespace but the user one its own.
    assert forked["ids"][0].split() == ["65534"] * 4  # type: ignore[index]
    assert set(forked["capabilities"].values()) == {"0000000000000000"}  # type: ignore[attr-defined]
    assert forked["no_new_privs"] == "1"
    assert forked["own_namespace"] == {"mnt": True, "pid": True, "net": True, "ipc": True,
                                       "uts": True, "cgroup": True, "user": False}
    assert forked["session_leader"] is False and forked["threads"] == 1  # as under bwrap
    assert forked["descriptors"] == execd["descriptors"]


def _run(sandbox: ProcessSandbox, scratch: Path, code: str,
         limits: SandboxLimits | None = None):  # type: ignore[no-untyped-def]
    job = sandbox.start(_spec(scratch, RUN_CODE, code, limits=limits))
    assert job.isolation.get("started_by") == "zygote"
    return job


def test_the_end_of_a_forked_job_is_reported_as_it_happened(sandbox: ProcessSandbox,
                                                            tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    info = _run(sandbox, scratch, "import sys; print('out'); sys.exit(3)").wait()
    assert info is not None and (info.returncode, info.signal) == (3, None)
    assert info.stdout.strip() == "out"
    info = _run(sandbox, scratch, "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)").wait()
    assert info is not None and info.signal == signal.SIGSEGV
    info = _run(sandbox, scratch, "raise ValueError('from the job')").wait()
    assert info is not None and info.returncode == 1 and "ValueError: from the job" in info.stderr


def test_a_killed_forked_job_leaves_nothing(sandbox: ProcessSandbox, tmp_path: Path) -> None:
    job = _run(sandbox, tmp_path / "scratch",
               "import os, time\nfor _ in range(3):\n    os.fork()\ntime.sleep(60)")
    deadline = time.monotonic() + 10
    while len(job.pids()) < 8 + 3 and time.monotonic() < deadline:  # 8 forks + the sandbox's
        time.sleep(0.05)
    pids = job.pids()
    assert len(pids) >= 8
    info = job.kill()
    assert info.signal == signal.SIGKILL
    assert not [pid for pid in pids if _running(pid)]


def _running(pid: int) -> bool:
    """A process that still exists and is no zombie (killed bwraps wait to be reaped)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


def test_the_job_cannot_reach_the_zygote_or_write_its_own_status(sandbox: ProcessSandbox,
                                                                 tmp_path: Path) -> None:
    """Everything the zygote held is closed before the job's code runs: no descriptor
    but the standard three and the channel, and no process outside its PID namespace."""
    code = ("import os, json\n"
            "fds = sorted(os.listdir('/proc/self/fd'))\n"
            "print(json.dumps({'fds': fds, 'pids': sorted(p for p in os.listdir('/proc') if p.isdigit()),"
            " 'ppid': os.getppid()}))\n"
            "import sys; sys.stdout.flush(); os._exit(0)")
    info = _run(sandbox, tmp_path / "scratch", code).wait()
    assert info is not None and info.returncode == 0, info
    seen = json.loads(info.stdout.strip().splitlines()[-1])
    assert len(seen["fds"]) == 5  # 0, 1, 2, the channel and the listing's own
    assert seen["ppid"] == 0  # its parent, the trusted intermediate, is outside its namespace
    assert seen["pids"] == ["1", "2", "3"]  # bwrap's init, the holder, the job
