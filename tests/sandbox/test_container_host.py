"""The docker backend's reads of a container from the host keep to the container's cgroup.

A container's main process that has exited but is not yet reaped is, on cgroup v1, moved
to the root cgroup: looked up again then, its "CPU account" was the whole machine's
(a CPU-limit test once read 77,296 s). The host view finds every directory while the
process lives and never takes the root.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from kerneltrials.sandbox import SandboxLimits
from kerneltrials.sandbox._cgroups import create_job_cgroup
from kerneltrials.sandbox._container_host import ContainerHost
from kerneltrials.sandbox._hostcgroup import cgroup_dir_of_pid


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] == "Z"
    except OSError:
        return False


def test_an_exited_main_process_keeps_its_own_cpu_account() -> None:
    cgroup, reasons = create_job_cgroup("host-view", SandboxLimits(memory_bytes=256 << 20))
    if cgroup is None:
        pytest.skip(f"no cgroup here: {reasons}")
    burner = subprocess.Popen(
        [sys.executable, "-c", "import time\nend = time.time() + 0.4\nwhile time.time() < end: pass\n"
         "time.sleep(60)"],
        preexec_fn=cgroup.enter,
    )
    try:
        host = ContainerHost(burner.pid)
        time.sleep(0.8)
        while_running = host.cpu_time_s()
        assert while_running is not None and 0.2 < while_running < 5, while_running

        os.kill(burner.pid, signal.SIGKILL)
        deadline = time.monotonic() + 5
        while not _zombie(burner.pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert _zombie(burner.pid)
        # Looked up now, the zombie's cgroup is the root (v1) or its own (v2): never the root.
        found = cgroup_dir_of_pid(burner.pid, "cpuacct")
        assert found is None or found[0] in {cgroup.dirs.get("cpuacct"), cgroup.dirs.get("pids")}
        after_exit = host.cpu_time_s()
        assert after_exit is not None and while_running <= after_exit < 5, after_exit
        assert host.limit_events() == (False, False)
    finally:
        burner.kill()
        burner.wait()
        cgroup.kill_all()
        cgroup.remove()
