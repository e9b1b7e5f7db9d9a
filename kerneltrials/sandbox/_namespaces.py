"""Command-line prefixes that put a job into new namespaces (bubblewrap or unshare).

Levels, strongest first (``ProcessSandbox(isolation=...)`` picks one, ``auto`` the best
that works on this machine):

- ``bwrap``: new network, PID, IPC, UTS and mount namespaces; a root filesystem built
  only from read-only binds of what a job needs (system dirs, the Python installation,
  this package, the job's mounts), the scratch dir and writable mounts bound read-write,
  a fresh ``/proc`` of the new PID namespace, a minimal ``/dev`` (plus ``/dev/nvidia*``
  on GPU hosts), all capabilities dropped. Host sockets (``/run``, ``/tmp``: a container
  engine's API socket is a full escape) are simply not there.
- ``unshare``: new network and PID namespaces and a private ``/proc``; capabilities
  dropped with ``setpriv``; the host filesystem stays writable (reported as missing).
- ``none``: no namespaces (session, rlimits and cgroups still apply).

See docs/design/sandbox.md.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

from kerneltrials.sandbox._base import JobSpec

ISOLATION_LEVELS = ("bwrap", "unshare", "none")

#: System directories a job may read (bound read-only when they exist).
_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")


def host_runtime_paths() -> list[Path]:
    """Host directories a job needs read-only: system dirs, Python, this package."""
    import kerneltrials

    candidates = [Path(p) for p in _SYSTEM_DIRS]
    candidates += [Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).parent]
    candidates.append(Path(kerneltrials.__file__).resolve().parent.parent)
    paths: list[Path] = []
    for path in candidates:
        for variant in (path, path.resolve()):
            if variant.exists() and variant not in paths:
                paths.append(variant)
    return _drop_nested(paths)


def _drop_nested(paths: list[Path]) -> list[Path]:
    """Keep only outermost directories (a bind of /usr already contains /usr/local)."""
    kept: list[Path] = []
    for path in sorted(paths, key=lambda p: len(p.parts)):
        if not any(_is_within(path, outer) for outer in kept):
            kept.append(path)
    return kept


def _is_within(path: Path, outer: Path) -> bool:
    return path == outer or outer in path.parents


def gpu_device_paths(gpu_index: int | None) -> list[Path]:
    """The NVIDIA device nodes a job on GPU ``gpu_index`` needs (none on CPU hosts)."""
    if gpu_index is None:
        return []
    names = ["nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset", f"nvidia{gpu_index}"]
    return [Path("/dev") / name for name in names if (Path("/dev") / name).exists()]


def bwrap_command(job: JobSpec) -> list[str]:
    """``bwrap … --`` for ``job``; append the job's argv."""
    command = ["bwrap", "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
    command += ["--unshare-cgroup-try", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    # The empty /tmp comes first: a Python installation or checkout under /tmp (a CI
    # runner's venv) is then bound on top of it instead of being hidden by it.
    command += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    for path in host_runtime_paths():
        if path.is_symlink():  # merged /usr: /bin -> usr/bin stays a link
            command += ["--symlink", os.readlink(path), str(path)]
        else:
            command += ["--ro-bind", str(path), str(path)]
    if Path("/sys").exists():  # the CUDA runtime reads PCI and NUMA topology here
        command += ["--ro-bind", "/sys", "/sys"]
    for device in gpu_device_paths(job.gpu_index):
        command += ["--dev-bind", str(device), str(device)]
    for mount in job.mounts:
        command += ["--bind" if mount.writable else "--ro-bind", str(mount.path), str(mount.path)]
    command += ["--bind", str(job.scratch_dir), str(job.scratch_dir)]
    command += ["--chdir", str(job.scratch_dir), "--"]
    return command


def unshare_command(job: JobSpec) -> list[str]:
    """``unshare … --`` (new net + PID namespace, private /proc, no capabilities)."""
    command = ["unshare", "--net", "--pid", "--fork", "--mount-proc", "--kill-child"]
    if shutil.which("setpriv"):
        command += ["--", "setpriv", "--bounding-set=-all", "--inh-caps=-all", "--no-new-privs"]
    return command + ["--"]


@functools.cache
def probe_level(level: str) -> str | None:
    """``None`` when ``level`` works on this machine, else why not (cached per process)."""
    if level == "none":
        return None
    tool = "bwrap" if level == "bwrap" else "unshare"
    if shutil.which(tool) is None:
        package = "bubblewrap" if tool == "bwrap" else "util-linux"
        return f"{tool} not found: install the Debian package {package}"
    probe_job = JobSpec(argv=["true"], env={}, scratch_dir=Path("/tmp"))
    prefix = bwrap_command(probe_job) if level == "bwrap" else unshare_command(probe_job)
    try:
        result = subprocess.run(
            [*prefix, "true"], capture_output=True, timeout=10, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"{tool} failed to start: {error}"
    if result.returncode != 0:
        return f"{tool} does not work here: {result.stderr.decode(errors='replace').strip()}"
    return None


def resolve_isolation_level(requested: str) -> tuple[str, list[str]]:
    """The level to use for ``requested`` (``auto`` or a level), and why stronger ones are not."""
    if requested != "auto" and requested not in ISOLATION_LEVELS:
        raise ValueError(
            f"unknown isolation level {requested!r}: choose auto, {', '.join(ISOLATION_LEVELS)}"
        )
    reasons: list[str] = []
    candidates = ISOLATION_LEVELS if requested == "auto" else (requested,)
    for level in candidates:
        problem = probe_level(level)
        if problem is None:
            return level, reasons
        reasons.append(problem)
    return "none", reasons
