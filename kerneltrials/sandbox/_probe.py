"""A trusted probe job that reports, from inside, what a job may do on this machine.

``kerneltrials doctor`` runs it: the sandbox's ``features()`` say what it configured;
this says what a job really gets (uid, capabilities, ``no_new_privs``, whether
``/proc/sys`` is writable, the scratch quota, what of the host it can see).
See docs/design/sandbox.md.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from kerneltrials.sandbox._base import JobSpec, Sandbox, SandboxLimits
from kerneltrials.sandbox._env import build_job_env
from kerneltrials.sandbox._view import package_dir

_PROBE = """
import json, os, sys
status = dict(line.split(":", 1) for line in open("/proc/self/status"))
scratch = os.statvfs(".")
def readable(path):
    try:
        open(path, "rb").read(1)
        return True
    except OSError:
        return False
print(json.dumps({
    "uid": os.getuid(), "gid": os.getgid(),
    "cap_effective": int(status["CapEff"], 16), "cap_bounding": int(status["CapBnd"], 16),
    "no_new_privs": status["NoNewPrivs"].strip() == "1",
    "proc_sys_writable": os.access("/proc/sys/kernel/core_pattern", os.W_OK),
    "etc_shadow_readable": readable("/etc/shadow"),
    "root_entries": sorted(os.listdir("/root")) if os.access("/root", os.R_OK) else [],
    "checkout_visible": os.path.exists(sys.argv[1]),
    "scratch_bytes": scratch.f_blocks * scratch.f_frsize,
}))
"""


def probe_job(sandbox: Sandbox, limits: SandboxLimits | None = None) -> dict[str, Any]:
    """Run the probe in ``sandbox``; its findings, or ``{"error": …}`` when it failed."""
    checkout = package_dir().parent / ".git"  # the checkout of an editable install, if any
    with tempfile.TemporaryDirectory(prefix="kt-probe-") as directory:
        scratch = Path(directory) / "scratch"
        job = sandbox.start(JobSpec(
            argv=[sys.executable, "-c", _PROBE, str(checkout)], env=build_job_env(),
            scratch_dir=scratch, limits=limits or SandboxLimits(wall_timeout_s=60),
            label="probe"))
        info = job.wait()
    if info is None or info.returncode != 0:
        return {"error": info.describe() + ": " + info.stderr[-300:] if info else "no exit"}
    result: dict[str, Any] = json.loads(info.stdout.strip().splitlines()[-1])
    return result
