"""Command-line prefixes that put a job into new namespaces (bubblewrap or unshare).

Levels, strongest first (``ProcessSandbox(isolation=...)`` picks one, ``auto`` the best
that works on this machine):

- ``bwrap``: new network, PID, IPC, UTS and mount namespaces; a root filesystem built
  only from read-only binds of the minimal view (:mod:`._view`: system dirs, the Python
  runtime and venv, this package, a few /etc files, the job's mounts), writable mounts
  bound read-write, the scratch dir a size-limited tmpfs (the disk quota), a fresh
  ``/proc`` of the new PID namespace, a minimal ``/dev`` (plus ``/dev/nvidia*`` on GPU
  hosts). Host sockets (``/run``, ``/tmp``: a container engine's API socket is a full
  escape) are simply not there.
- ``unshare``: new network and PID namespaces and a private ``/proc``; the host
  filesystem, seen through the job user's permissions (reported as missing).
- ``none``: no namespaces (session, rlimits, cgroups and the user drop still apply).

Every level ends with ``setpriv`` (:mod:`._privilege`): the job runs as an unprivileged
user with no capabilities and ``no_new_privs``. See docs/design/sandbox.md.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

from kerneltrials.sandbox._base import JobSpec
from kerneltrials.sandbox._privilege import (
    JobUser,
    resolve_job_user,
    setpriv_command,
    unreachable_ancestor,
)
from kerneltrials.sandbox._view import is_within, package_dir, runtime_paths

ISOLATION_LEVELS = ("bwrap", "unshare", "none")

#: Capabilities bwrap keeps for ``setpriv`` (change ids, drop the bounding set); setpriv
#: then empties every set before the job's program starts.
_SETPRIV_CAPS = ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP")


def gpu_device_paths(gpu_index: int | None) -> list[Path]:
    """The NVIDIA device nodes a job on GPU ``gpu_index`` needs (none on CPU hosts)."""
    if gpu_index is None:
        return []
    names = ["nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset", f"nvidia{gpu_index}"]
    return [Path("/dev") / name for name in names if (Path("/dev") / name).exists()]


def bwrap_command(job: JobSpec, user: JobUser) -> list[str]:
    """``bwrap … --`` for ``job`` (the ``setpriv`` prefix and the job's argv follow)."""
    command = ["bwrap", "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
    command += ["--unshare-cgroup-try", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    if user.drops:
        for capability in _SETPRIV_CAPS:
            command += ["--cap-add", capability]
    # The empty /tmp comes first: a Python installation or checkout under /tmp (a CI
    # runner's venv) is then bound on top of it instead of being hidden by it.
    command += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    targets = [*runtime_paths(), *(mount.path for mount in job.mounts), job.scratch_dir]
    for directory in traversable_parents(targets):
        command += ["--perms", "0755", "--dir", str(directory)]
    for path in runtime_paths():
        if path.is_symlink() and path.parent == Path("/"):  # merged /usr: /bin -> usr/bin
            command += ["--symlink", os.readlink(path), str(path)]
        else:
            command += ["--ro-bind", str(path), str(path)]
    if Path("/sys").exists():  # the CUDA runtime reads PCI and NUMA topology here
        command += ["--ro-bind", "/sys", "/sys"]
    for device in gpu_device_paths(job.gpu_index):
        command += ["--dev-bind", str(device), str(device)]
    for mount in job.mounts:
        command += ["--bind" if mount.writable else "--ro-bind", str(mount.path), str(mount.path)]
    if job.limits.scratch_bytes is not None:  # the disk quota: writes past it get ENOSPC
        command += ["--size", str(job.limits.scratch_bytes)]
    command += ["--perms", "1777", "--tmpfs", str(job.scratch_dir)]
    command += ["--chdir", str(job.scratch_dir), "--"]
    return command


def traversable_parents(targets: list[Path]) -> list[Path]:
    """The directories above ``targets`` that bwrap must create, outermost first.

    bwrap copies a missing parent's mode from the host, so ``/root`` (0700) would stay
    closed to the job's user above a runtime bound inside it; these are made 0755.
    """
    parents = {parent for target in targets for parent in target.parents}
    parents -= {Path("/"), Path("/tmp")}
    kept = [p for p in parents if not any(p != t and is_within(p, t) for t in targets)]
    return sorted(kept, key=lambda p: len(p.parts))


def unshare_command(job: JobSpec) -> list[str]:
    """``unshare … --`` (new net + PID namespace, private /proc)."""
    return ["unshare", "--net", "--pid", "--fork", "--mount-proc", "--kill-child", "--"]


def level_command(level: str, job: JobSpec, user: JobUser) -> list[str]:
    """Everything before the job's argv at ``level``: namespaces, then the user drop."""
    prefix = {"bwrap": lambda: bwrap_command(job, user), "unshare": lambda: unshare_command(job)}
    namespaces = prefix[level]() if level in prefix else []
    return [*namespaces, *setpriv_command(user)]


def unreachable_runtime(user: JobUser) -> str | None:
    """Why ``user`` cannot start this Python through host permissions, if it cannot."""
    for path in (Path(sys.executable).resolve(), Path(sys.prefix), package_dir()):
        blocked = unreachable_ancestor(path, user)
        if blocked is not None:
            mode = oct(blocked.stat().st_mode & 0o777) if blocked.exists() else "missing"
            return (f"uid {user.uid} cannot reach {path} ({blocked} is {mode}) without "
                    "a mount namespace: install bubblewrap, or put Python where other "
                    "users may read it")
    return None


@functools.cache
def probe_level(level: str, user_spec: str | None = None) -> str | None:
    """``None`` when ``level`` works on this machine, else why not (cached per process)."""
    user = resolve_job_user(user_spec)
    if shutil.which("setpriv") is None:
        return "setpriv not found: install the Debian package util-linux"
    if level != "bwrap" and (problem := unreachable_runtime(user)) is not None:
        return f"{level}: {problem}"
    if level == "none":
        return None
    tool = "bwrap" if level == "bwrap" else "unshare"
    if shutil.which(tool) is None:
        package = "bubblewrap" if tool == "bwrap" else "util-linux"
        return f"{tool} not found: install the Debian package {package}"
    probe_job = JobSpec(argv=["true"], env={}, scratch_dir=Path("/tmp/kt-probe"))
    try:
        result = subprocess.run(
            [*level_command(level, probe_job, user), "true"],
            capture_output=True, timeout=10, stdin=subprocess.DEVNULL, cwd="/",
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"{tool} failed to start: {error}"
    if result.returncode != 0:
        return f"{tool} does not work here: {result.stderr.decode(errors='replace').strip()}"
    return None


def resolve_isolation_level(
    requested: str, user_spec: str | None = None
) -> tuple[str, list[str]]:
    """The level to use for ``requested`` (``auto`` or a level), and why stronger ones are not.

    Raises:
        ValueError: ``requested`` is not a level, or no level can run a job unprivileged.
    """
    if requested != "auto" and requested not in ISOLATION_LEVELS:
        raise ValueError(
            f"unknown isolation level {requested!r}: choose auto, {', '.join(ISOLATION_LEVELS)}"
        )
    reasons: list[str] = []
    candidates = ISOLATION_LEVELS if requested == "auto" else (requested,)
    for level in candidates:
        problem = probe_level(level, user_spec)
        if problem is None:
            return level, reasons
        reasons.append(problem)
    return "none", reasons
