"""What a job is, read from inside it: ``python -m kerneltrials.sandbox._facts``.

A trusted job that prints, as one JSON line, every property of its process the sandbox
is meant to set: ids, capability sets, ``no_new_privs``, seccomp, dumpable, which
namespaces differ from the harness's (their ids are passed in ``argv``), the mount
table, cgroups, limits, session, open descriptors, environment and working directory.
The zygote's conformance test starts it both ways (forked and exec'd) and compares.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import sys
import tempfile
from typing import Any

NAMESPACES = ("mnt", "pid", "net", "ipc", "uts", "cgroup", "user")
_LIMITS = ("RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_CORE", "RLIMIT_NPROC",
           "RLIMIT_AS", "RLIMIT_STACK", "RLIMIT_MEMLOCK")
_PR_GET_DUMPABLE = 3


def host_namespaces() -> dict[str, str]:
    """The calling process's namespace ids (what the harness passes to the job)."""
    return {name: os.readlink(f"/proc/self/ns/{name}") for name in NAMESPACES}


def _status() -> dict[str, str]:
    with open("/proc/self/status") as status:
        return {k: v.strip() for k, _, v in (line.partition(":") for line in status)}


def _descriptor(fd: str) -> str:
    try:
        target = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return "gone"
    if ":[" in target:  # socket:[inode], pipe:[inode]
        return target.split(":", 1)[0]
    return os.path.basename(target) if target.startswith(("/tmp/", "/var/")) else target


def facts(host: dict[str, str]) -> dict[str, Any]:
    status = _status()
    own = host_namespaces()
    with open("/proc/self/mountinfo") as table:
        mounts = sorted(f"{fields[4]} {fields[5].split(',')[0]} {line.split(' - ')[1].split()[0]}"
                        for line in table for fields in [line.split()])
    descriptors = sorted(os.listdir("/proc/self/fd"))
    libc = ctypes.CDLL(None)
    return {
        "ids": [status["Uid"], status["Gid"], status.get("Groups", "")],
        "capabilities": {name: status[name] for name in
                         ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")},
        "no_new_privs": status["NoNewPrivs"],
        "seccomp": status["Seccomp"],
        "dumpable": libc.prctl(_PR_GET_DUMPABLE, 0, 0, 0, 0),
        "own_namespace": {name: own[name] != host.get(name) for name in NAMESPACES},
        "pid_is_init": os.getpid() == 1,
        "session_leader": os.getsid(0) == os.getpid(),
        "mounts": mounts,
        "cgroups": open("/proc/self/cgroup").read().split(),
        "limits": {name: resource.getrlimit(getattr(resource, name)) for name in _LIMITS},
        "umask": os.umask(0o022),
        "affinity": sorted(os.sched_getaffinity(0)),
        # The listing's own descriptor is closed by now: it reads as gone.
        "descriptors": sorted(kind for kind in map(_descriptor, descriptors) if kind != "gone"),
        "environment": {name: value for name, value in sorted(os.environ.items())
                        if name != "KERNELTRIALS_CHANNEL"},
        "cwd": os.getcwd(),
        # Where the job's temporary files go: a forked job must not keep the directory
        # the zygote's imports cached (prefork below caches one, as torch's do).
        "tempdir": tempfile.gettempdir(),
        "home": os.path.expanduser("~"),
        "root": sorted(os.listdir("/")),
        "threads": len(os.listdir("/proc/self/task")),
    }


def prefork() -> None:
    """What the zygote runs once before forking (``sandbox/zygote``): cache the temporary
    directory as an import of torch does, under the zygote's own ``TMPDIR``."""
    tempfile.gettempdir()


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    host = json.loads(args[0]) if args else {}
    print(json.dumps(facts(host), sort_keys=True), flush=True)


if __name__ == "__main__":
    main()
