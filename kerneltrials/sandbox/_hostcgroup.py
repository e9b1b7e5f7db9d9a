"""Reading a job's cgroups from the host: the directory of a pid's cgroup per controller,
its member pids, and its CPU account split into user and system time.

The process backend knows its job's cgroup directories (it made them); the docker backend
finds the container's from the host pid of its main process (``State.Pid``), which needs
a local engine. Everything here only reads files the job cannot write. See
docs/design/sandbox.md ("Measuring a job from outside").
"""

from __future__ import annotations

import os
from pathlib import Path

#: v1 ``cpuacct.stat`` counts in clock ticks (USER_HZ).
_TICKS_PER_S = os.sysconf("SC_CLK_TCK")


def read_or_empty(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def mount_points(fstype: str) -> list[tuple[Path, str, str]]:
    """(mount point, root inside the hierarchy, super options) of mounts of ``fstype``."""
    found = []
    for line in read_or_empty(Path("/proc/self/mountinfo")).splitlines():
        before, _, after = line.partition(" - ")
        fields, tail = before.split(), after.split()
        if len(fields) >= 5 and len(tail) >= 3 and tail[0] == fstype:
            found.append((Path(fields[4]), fields[3], tail[2]))
    return found


def cgroup_dir_of_pid(pid: int, controller: str) -> tuple[Path, int] | None:
    """(host directory, cgroup version) of ``pid``'s cgroup for ``controller``.

    A v1 hierarchy mounting ``controller`` wins; otherwise the unified (v2) cgroup, where
    every controller and the core files (``cgroup.freeze``, ``cgroup.procs``) share one
    directory. ``None`` when the pid is gone or no mount holds its cgroup.
    """
    v2_path = None
    for line in read_or_empty(Path(f"/proc/{pid}/cgroup")).splitlines():
        _, controllers, path = line.split(":", 2)
        if not controllers:
            v2_path = path
            continue
        if controller not in controllers.split(",") or path == "/":
            continue  # a container is never in the root cgroup: that is the machine's
        for mount_point, root, options in mount_points("cgroup"):
            if controller in options.split(","):
                return _below(mount_point, root, path), 1
    if v2_path is not None:
        for mount_point, root, _ in mount_points("cgroup2"):
            directory = _below(mount_point, root, v2_path)
            if (directory / "cgroup.procs").exists() and v2_path != "/":
                return directory, 2
    return None


def _below(mount_point: Path, root: str, path: str) -> Path:
    relative = path[len(root) :] if path.startswith(root) else path
    return mount_point / relative.lstrip("/")


def member_pids(directory: Path) -> set[int]:
    """Process ids (thread-group leaders) in one cgroup directory; empty when unreadable."""
    return {int(word) for word in read_or_empty(directory / "cgroup.procs").split() if word.isdigit()}


def cpu_breakdown(directory: Path, version: int) -> dict[str, float] | None:
    """``{"user_s", "system_s", "total_s"}`` of a CPU-accounting cgroup directory.

    v1: ``cpuacct.stat`` (ticks, coarse: 10 ms) and ``cpuacct.usage`` (ns) for the total;
    v2: ``cpu.stat`` (``user_usec``, ``system_usec``, ``usage_usec``). ``None`` if unreadable.
    """
    if version == 1:
        stat = read_counters(directory / "cpuacct.stat")
        usage = read_or_empty(directory / "cpuacct.usage").strip()
        if "user" not in stat or not usage.isdigit():
            return None
        return {
            "user_s": stat["user"] / _TICKS_PER_S,
            "system_s": stat.get("system", 0) / _TICKS_PER_S,
            "total_s": int(usage) / 1e9,
        }
    stat = read_counters(directory / "cpu.stat")
    if "usage_usec" not in stat:
        return None
    return {
        "user_s": stat.get("user_usec", 0) / 1e6,
        "system_s": stat.get("system_usec", 0) / 1e6,
        "total_s": stat["usage_usec"] / 1e6,
    }


def read_counters(path: Path) -> dict[str, int]:
    """``name value`` lines of a cgroup file (``cpu.stat``, ``memory.events``, ...); empty
    when unreadable."""
    counters = {}
    for line in read_or_empty(path).splitlines():
        name, _, value = line.partition(" ")
        if value.strip().isdigit():
            counters[name] = int(value)
    return counters
