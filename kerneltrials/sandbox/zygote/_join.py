"""Inside a zygote's fork: become a job of a sandbox that bwrap already built.

bwrap builds each job's view (namespaces, read-only binds, the scratch tmpfs, ``/proc``)
around a placeholder process, the *holder*. A process forked from the zygote joins that
job: the holder's PID namespace (for its next child), the job's cgroups, then the
holder's IPC, UTS, network, cgroup and mount namespaces; it then ends as bwrap's own
programs end, through ``setpriv``'s drop: no supplementary groups, the job's user, every
capability set empty (the bounding set included), ``no_new_privs``, and dumpable as an
exec would leave it. It checks the result in ``/proc/self/status`` and refuses to run the
job's code if any of it did not hold. See docs/design/sandbox.md ("Starting a worker").

Runs in the root zygote's forked child, before any job code; every failure ends the
process (``os._exit``), never returns into the zygote's loop.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
from dataclasses import dataclass

#: The namespaces joined after the cgroups, in this order: the mount namespace last (it
#: changes the root, so the ``/proc/<holder>/ns`` files are opened before any join).
JOINED_NAMESPACES = ("ipc", "uts", "net", "cgroup", "mnt")
_PR_CAPBSET_DROP = 24
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_DUMPABLE = 4
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
#: /proc/self/status fields that must read zero (or one) once the job's user is in place.
_CAPABILITY_FIELDS = ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")
#: Where the job finds its channel (the ``fd:N`` its environment names).
JOB_CHANNEL_FD = 3


class JoinError(Exception):
    """The fork could not become the job; it must not run the job's code."""


@dataclass(frozen=True)
class JoinPlan:
    """What one job needs from the zygote's fork (all decided by the harness)."""

    holder_pid: int  # host pid of the holder: its namespaces are the job's
    holder_start: int  # its start time (``start_time``), read by the harness
    cwd: str
    uid: int
    gid: int
    drops: bool  # a root harness drops to uid:gid; otherwise the user is kept
    rlimits: tuple[tuple[int, int, int], ...]  # (resource, soft, hard)


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        error = ctypes.get_errno()
        raise JoinError(f"{what}: {os.strerror(error)}")


def start_time(pid: int) -> int:
    """When ``pid`` started (clock ticks since boot): with the pid, names one process
    (a pid alone may be reused once its process is gone)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rpartition(")")[2].split()
    return int(fields[19])  # field 22 of proc(5); the fields after the name start at 3


def open_namespaces(holder_pid: int, holder_start: int) -> dict[str, int]:
    """File descriptors of the holder's namespaces, opened while the host's ``/proc`` is
    still this process's (``pid`` included: joined first, for the next fork). Checked
    after opening: they are the holder's, not those of a process that reused its pid."""
    descriptors: dict[str, int] = {}
    try:
        for name in ("pid", *JOINED_NAMESPACES):
            descriptors[name] = os.open(f"/proc/{holder_pid}/ns/{name}", os.O_RDONLY)
        if start_time(holder_pid) != holder_start:
            raise JoinError("the holder is gone (its pid names another process)")
    except OSError as error:
        for fd in descriptors.values():
            os.close(fd)
        raise JoinError(f"the holder's namespaces: {error.strerror}") from None
    except JoinError:
        for fd in descriptors.values():
            os.close(fd)
        raise
    return descriptors


def join_pid_namespace(descriptors: dict[str, int]) -> None:
    """Join the holder's PID namespace: this process's next child is born in it."""
    _check(_libc().setns(descriptors["pid"], 0), "setns(pid)")


def become_job(plan: JoinPlan, descriptors: dict[str, int], cgroup_fds: list[int]) -> None:
    """In the child born in the job's PID namespace: join the rest and drop everything."""
    libc = _libc()
    # A signal disposition set in the zygote is none of the job's business.
    # Python's own start-up state: SIGINT raises KeyboardInterrupt, SIGPIPE is ignored.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    for fd in cgroup_fds:  # before the cgroup namespace: the job's cgroups are its root
        try:
            os.write(fd, b"0")
        except OSError as error:
            raise JoinError(f"joining the job's cgroup: {error.strerror}") from None
    for name in JOINED_NAMESPACES:
        _check(libc.setns(descriptors[name], 0), f"setns({name})")
    for fd in [*descriptors.values(), *cgroup_fds]:
        os.close(fd)
    os.chdir(plan.cwd)
    for number, soft, hard in plan.rlimits:
        resource.setrlimit(number, (soft, hard))
    if plan.drops:
        _drop_to_user(libc, plan.uid, plan.gid)
    _check(libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    # The kernel made the fork non-dumpable when its user changed; setpriv's exec would
    # have made it dumpable again. The same job either way (its /proc files its own).
    _check(libc.prctl(_PR_SET_DUMPABLE, 1, 0, 0, 0), "dumpable")
    _check_status(plan)


def _drop_to_user(libc: ctypes.CDLL, uid: int, gid: int) -> None:
    last = int(open("/proc/sys/kernel/cap_last_cap").read())
    for capability in range(last + 1):  # needs CAP_SETPCAP: before the user changes
        _check(libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0), "dropping the bounding set")
    _check(libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "clearing ambient")
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)  # from root to a user: permitted and effective sets empty


def _check_status(plan: JoinPlan) -> None:
    """What bwrap plus setpriv guarantee, read back from the kernel."""
    fields = {}
    with open("/proc/self/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            fields[name] = value.split()
    if fields.get("NoNewPrivs") != ["1"]:
        raise JoinError("no_new_privs is not set")
    if plan.drops:
        if any(int(fields[name][0], 16) for name in _CAPABILITY_FIELDS):
            raise JoinError("a capability set is not empty: "
                            + ", ".join(f"{n}={fields[n][0]}" for n in _CAPABILITY_FIELDS))
        if fields["Uid"] != [str(plan.uid)] * 4 or fields["Gid"] != [str(plan.gid)] * 4:
            raise JoinError(f"ids are {fields['Uid']}/{fields['Gid']}")
        if fields.get("Groups"):
            raise JoinError(f"supplementary groups left: {fields['Groups']}")

