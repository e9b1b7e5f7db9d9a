"""Per-job cgroups: memory and process-count limits, limit detection, and a group kill.

Everything runs as root on our machines, and the kernel does not apply ``RLIMIT_NPROC``
to root, so only a cgroup bounds a fork bomb; a memory cgroup (not ``RLIMIT_AS``, which
breaks the CUDA runtime) bounds a memory bomb. Both hierarchies are supported:

- v1 (``memory`` and ``pids`` controllers mounted separately, as on our dev machines),
- v2 (unified; the harness needs a cgroup whose children may enable ``memory`` and
  ``pids``: its own when that works, else ``KERNELTRIALS_CGROUP_ROOT``, e.g. a systemd
  unit started with ``Delegate=yes``).

CPU time is accounted per job (v1 ``cpuacct.usage``, v2 ``cpu.stat`` ``usage_usec``) when
the machine has it: the harness reads it from outside, so the job cannot touch it.

A job's cgroup is nested under the harness's own cgroup, so the harness's own limits keep
applying. The child joins it before ``exec`` (see :meth:`JobCgroup.enter`), so every
descendant is inside from its first instruction. See docs/design/sandbox.md.

A job's cgroup is named after the process that made it (``kt-<label>-<pid>-<random>``).
A harness killed outright (SIGKILL, a lost Ray worker) cannot clean up, and a job it had
frozen between requests would stay frozen, holding its memory, for ever: every harness
that makes a cgroup first sweeps those whose maker is gone (thawed, killed, removed).
"""

from __future__ import annotations

import os
import re
import signal
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from kerneltrials._pids import pid_alive
from kerneltrials.sandbox._base import SandboxLimits
from kerneltrials.sandbox._freezer import Freezer, freezer_for
from kerneltrials.sandbox._hostcgroup import cpu_breakdown, mount_points, read_or_empty

CGROUP_ROOT_ENV = "KERNELTRIALS_CGROUP_ROOT"
_CONTROLLERS = ("memory", "pids")
#: Optional: the job's CPU account (v1 controller name; v2 has cpu.stat everywhere).
_CPU_ACCOUNTING = "cpuacct"
#: Optional: the v1 freezer (v2 has cgroup.freeze in every non-root cgroup).
_FREEZER = "freezer"
_OPTIONAL = (_CPU_ACCOUNTING, _FREEZER)
#: A job cgroup's name: its label, the pid of the harness that made it, a random part.
_JOB_NAME = re.compile(r"^kt-.+-(?P<owner>\d+)-[0-9a-f]{8}$")
#: Sweeping for orphans at most this often per process (listing is cheap, not free).
SWEEP_INTERVAL_S = 30.0
_last_sweep = 0.0


@dataclass
class JobCgroup:
    """The cgroup directories of one job: one per controller on v1, one shared on v2."""

    version: int
    dirs: dict[str, Path]  # controller -> directory
    active: set[str] = field(default_factory=set)  # controllers whose limits were set

    def enter(self) -> None:
        """Move the calling process into the job's cgroups (runs in the child, pre-exec)."""
        pid = str(os.getpid()).encode()
        for directory in set(self.dirs.values()):
            fd = os.open(directory / "cgroup.procs", os.O_WRONLY)
            try:
                os.write(fd, pid)
            finally:
                os.close(fd)

    def member_pids(self) -> set[int]:
        pids: set[int] = set()
        for directory in set(self.dirs.values()):
            try:
                text = (directory / "cgroup.procs").read_text()
            except OSError:
                continue
            pids.update(int(line) for line in text.split())
        return pids

    def kill_all(self, deadline_s: float = 5.0) -> bool:
        """SIGKILL every member until the cgroup is empty; True when it is."""
        if self.version == 2:
            _write(self.dirs["pids"] / "cgroup.kill", "1")
        end = time.monotonic() + deadline_s
        while time.monotonic() < end:
            members = self.member_pids()
            if not members:
                return True
            # A forking member may add processes between rounds; the pids limit bounds it.
            for pid in members:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            # A v1-frozen task keeps its SIGKILL pending until thawed; it dies on its way
            # back to user space, so thawing after the signal runs none of its code.
            self._thaw_quietly()
            time.sleep(0.005)
        return not self.member_pids()

    def _thaw_quietly(self) -> None:
        directory = self.dirs.get(_FREEZER) if self.version == 1 else None
        if directory is not None:
            _write(directory / "freezer.state", "THAWED")

    def freezer(self) -> Freezer | None:
        """The job's cgroup freezer (v1 ``freezer`` controller, v2 ``cgroup.freeze``)."""
        directory = self.dirs.get(_FREEZER) if self.version == 1 else self.dirs["pids"]
        return freezer_for(directory, self.version)

    def cpu_breakdown(self) -> dict[str, float] | None:
        """User, system and total CPU seconds of the job (see :func:`cpu_breakdown`)."""
        directory = self.dirs.get(_CPU_ACCOUNTING)
        return cpu_breakdown(directory, self.version) if directory is not None else None

    def is_memory_limit_hit(self) -> bool:
        if "memory" not in self.active:
            return False
        if self.version == 1:
            return _counter(self.dirs["memory"] / "memory.oom_control", "oom_kill") > 0
        return _counter(self.dirs["memory"] / "memory.events", "oom_kill") > 0

    def is_pids_limit_hit(self) -> bool:
        if "pids" not in self.active:
            return False
        return _counter(self.dirs["pids"] / "pids.events", "max") > 0

    def cpu_time_s(self) -> float | None:
        """CPU seconds used by every process that was ever in the cgroup, if accounted."""
        directory = self.dirs.get(_CPU_ACCOUNTING)
        if directory is None:
            return None
        if self.version == 1:
            text = read_or_empty(directory / "cpuacct.usage").strip()
            return int(text) / 1e9 if text.isdigit() else None
        usage = _counter(directory / "cpu.stat", "usage_usec")
        return usage / 1e6 if (directory / "cpu.stat").exists() else None

    def remove(self) -> None:
        for directory in set(self.dirs.values()):
            for _ in range(50):
                try:
                    directory.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # EBUSY while the last members are being reaped
                    time.sleep(0.01)


def create_job_cgroup(label: str, limits: SandboxLimits) -> tuple[JobCgroup | None, list[str]]:
    """A fresh cgroup for one job with ``limits`` applied, and what could not be set.

    Returns ``(None, reasons)`` when this machine offers no usable cgroup; the job then
    runs without memory/pids limits and the reasons go into its ``isolation`` report.
    """
    name = f"kt-{_safe(label)}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    parents, reason = find_cgroup_parents()
    if parents is None:
        return None, [reason]
    global _last_sweep
    if time.monotonic() - _last_sweep > SWEEP_INTERVAL_S:
        _last_sweep = time.monotonic()
        sweep_orphan_cgroups(parents)
    version = _hierarchy_version(parents)
    dirs = {controller: parent / name for controller, parent in parents.items()}
    try:
        for directory in set(dirs.values()):
            directory.mkdir()
    except OSError as error:
        return None, [f"cgroup: cannot create {name}: {error}"]
    cgroup = JobCgroup(version, dirs)
    missing = _apply_limits(cgroup, limits)
    return cgroup, missing


def _hierarchy_version(parents: dict[str, Path]) -> int:
    """2 when every controller shares one cgroup2 directory, else 1."""
    return 2 if len(set(parents.values())) == 1 and _is_v2(next(iter(parents.values()))) else 1


def sweep_orphan_cgroups(parents: dict[str, Path]) -> list[str]:
    """Kill and remove every job cgroup under ``parents`` whose maker is no longer alive
    (its jobs thawed first: a frozen task's SIGKILL waits for the thaw). Returns the
    names removed."""
    names: set[str] = set()
    for parent in set(parents.values()):
        try:
            names.update(entry.name for entry in parent.iterdir() if entry.is_dir())
        except OSError:
            continue
    version = _hierarchy_version(parents)
    swept = []
    for name in sorted(names):
        match = _JOB_NAME.match(name)
        if match is None or pid_alive(int(match["owner"])):
            continue
        dirs = {c: parent / name for c, parent in parents.items() if (parent / name).is_dir()}
        if not dirs:
            continue
        orphan = JobCgroup(version, dirs)
        orphan.kill_all(deadline_s=2.0)
        orphan.remove()
        swept.append(name)
    return swept


def _apply_limits(cgroup: JobCgroup, limits: SandboxLimits) -> list[str]:
    missing: list[str] = []
    memory_files = (
        ("memory.limit_in_bytes", "memory.memsw.limit_in_bytes")
        if cgroup.version == 1
        else ("memory.max", "memory.swap.max")
    )
    if limits.memory_bytes is not None:
        directory = cgroup.dirs["memory"]
        if _write(directory / memory_files[0], str(limits.memory_bytes)):
            cgroup.active.add("memory")
            # Without swap accounting a bomb would swap instead of hitting the limit.
            swap = str(limits.memory_bytes) if cgroup.version == 1 else "0"
            _write(directory / memory_files[1], swap)
        else:
            missing.append(f"memory_limit: cannot write {directory / memory_files[0]}")
    if limits.max_processes is not None:
        directory = cgroup.dirs["pids"]
        if _write(directory / "pids.max", str(limits.max_processes)):
            cgroup.active.add("pids")
        else:
            missing.append(f"pids_limit: cannot write {directory / 'pids.max'}")
    return missing


def find_cgroup_parents() -> tuple[dict[str, Path] | None, str]:
    """Where job cgroups go, per controller; ``(None, reason)`` when nowhere usable."""
    override = os.environ.get(CGROUP_ROOT_ENV)
    if override:
        root = Path(override)
        if _is_v2(root):
            return _v2_parents(root)
        return None, f"cgroup: {CGROUP_ROOT_ENV}={override} is not a cgroup2 directory"
    v1 = _v1_parents()
    if v1 is not None:
        return v1, ""
    unified = mount_points("cgroup2")
    if unified:
        return _v2_parents(unified[0][0] / _own_path("").lstrip("/"))
    return None, "cgroup: no memory/pids cgroup controllers are mounted"


def _v1_parents() -> dict[str, Path] | None:
    parents: dict[str, Path] = {}
    for mount_point, root, options in mount_points("cgroup"):
        for controller in (*_CONTROLLERS, *_OPTIONAL):
            if controller in options.split(","):
                own = _own_path(controller)
                relative = own[len(root) :] if own.startswith(root) else own
                parents[controller] = mount_point / relative.lstrip("/")
    for optional in _OPTIONAL:  # the job runs without a CPU account or a freezer
        parent = parents.get(optional)
        if parent is not None and not os.access(parent, os.W_OK):
            del parents[optional]
    if not set(_CONTROLLERS) <= set(parents):
        return None
    if not all(os.access(parent, os.W_OK) for parent in parents.values()):
        return None
    return parents


def _v2_parents(root: Path) -> tuple[dict[str, Path] | None, str]:
    available = read_or_empty(root / "cgroup.controllers").split()
    missing = [c for c in _CONTROLLERS if c not in available]
    if missing:
        return None, f"cgroup: v2 controllers {missing} not available in {root}"
    enabled = read_or_empty(root / "cgroup.subtree_control").split()
    for controller in _CONTROLLERS:
        if controller not in enabled and not _write(
            root / "cgroup.subtree_control", f"+{controller}"
        ):
            return None, (
                f"cgroup: cannot enable {controller} below {root} (it holds processes); "
                f"set {CGROUP_ROOT_ENV} to a delegated cgroup (systemd Delegate=yes)"
            )
    return {controller: root for controller in (*_CONTROLLERS, _CPU_ACCOUNTING)}, ""


def _own_path(controller: str) -> str:
    """The harness's cgroup path for ``controller`` ('' selects the v2 entry)."""
    for line in read_or_empty(Path("/proc/self/cgroup")).splitlines():
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(",") or (controller == "" and controllers == ""):
            return path
    return "/"


def _is_v2(directory: Path) -> bool:
    return (directory / "cgroup.controllers").exists()


def _counter(path: Path, key: str) -> int:
    for line in read_or_empty(path).splitlines():
        name, _, value = line.partition(" ")
        if name == key and value.strip().isdigit():
            return int(value)
    return 0


def _write(path: Path, text: str) -> bool:
    try:
        path.write_text(text)
        return True
    except OSError:
        return False


def _safe(label: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in label)[:40]
