"""A running container seen from the host: its cgroups, processes, freezer and channel peer.

The docker backend measures a container from outside the way the process backend measures
its own job: the pids, CPU account and freezer state come from the container's host cgroup
(found from ``State.Pid``; a local engine only), and freezing goes through the engine's
pause/unpause (crun/runc write the same cgroup freezer), confirmed on the host's cgroup
files where they are readable. See docs/design/sandbox.md ("Measuring a job from outside").
"""

from __future__ import annotations

import os
import signal
import socket
import time
from collections.abc import Callable
from pathlib import Path

from kerneltrials.sandbox._freezer import FreezeError, Freezer, freezer_for
from kerneltrials.sandbox._hostcgroup import (
    cgroup_dir_of_pid,
    cpu_breakdown,
    member_pids,
    read_counters,
)
from kerneltrials.sandbox._sockdiag import unix_peer_inode

_POLL_S = 0.0005


class EngineFreezer(Freezer):
    """The engine's pause/unpause, confirmed on the container's host freezer when readable."""

    def __init__(
        self, pause: Callable[[], None], unpause: Callable[[], None], host: Freezer | None
    ) -> None:
        self._pause, self._unpause, self._host = pause, unpause, host
        self._paused = False
        self.kind = host.kind if host is not None else "engine"

    def freeze(self, timeout_s: float) -> None:
        try:
            self._pause()
        except Exception as error:  # the SDK raises APIError or requests' errors
            raise FreezeError(f"the engine could not pause the container: {error}") from error
        self._paused = True
        end = time.monotonic() + timeout_s
        while self._host is not None and not self._host.is_frozen():
            if time.monotonic() >= end:
                self.thaw()
                raise FreezeError(f"the container did not freeze within {timeout_s:g} s")
            time.sleep(_POLL_S)

    def thaw(self) -> None:
        try:
            self._unpause()
        except Exception as error:
            raise FreezeError(f"the engine could not unpause the container: {error}") from error
        self._paused = False

    def is_frozen(self) -> bool:
        return self._host.is_frozen() if self._host is not None else self._paused


class ContainerHost:
    """Host-side reads of one container whose main process has host pid ``pid``."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self._dirs: dict[str, tuple[Path, int] | None] = {}
        # Every directory is found now, while the main process surely lives: read later,
        # an exited pid's /proc entry may be gone or a new process's (another cgroup's
        # account: a CPU-time check once read the whole machine's 77,296 s).
        for controller in ("pids", "cpuacct", "memory", "freezer"):
            self._dir(controller)

    def _dir(self, controller: str) -> tuple[Path, int] | None:
        # Looked up once, while the main process lives; the path stays valid after.
        if controller not in self._dirs:
            found = cgroup_dir_of_pid(self.pid, controller) if self.pid > 0 else None
            self._dirs[controller] = found
        return self._dirs[controller]

    def pids(self) -> list[int]:
        found = self._dir("pids")
        return sorted(member_pids(found[0])) if found is not None else []

    def cpu_breakdown(self) -> dict[str, float] | None:
        found = self._dir("cpuacct")
        return cpu_breakdown(*found) if found is not None else None

    def cpu_time_s(self) -> float | None:
        breakdown = self.cpu_breakdown()
        return breakdown["total_s"] if breakdown is not None else None

    def limit_events(self) -> tuple[bool, bool] | None:
        """(memory limit hit, pids limit hit), or ``None`` when neither is readable."""
        memory, pids = self._dir("memory"), self._dir("pids")
        memory_file = "memory.events" if memory and memory[1] == 2 else "memory.oom_control"
        memory_events = read_counters(memory[0] / memory_file) if memory else {}
        pids_events = read_counters(pids[0] / "pids.events") if pids else {}
        if not memory_events and not pids_events:
            return None
        return memory_events.get("oom_kill", 0) > 0, pids_events.get("max", 0) > 0

    def freezer(self) -> Freezer | None:
        found = self._dir("freezer")
        return freezer_for(*found) if found is not None else None

    def kill_frozen(self) -> None:
        """SIGKILL every member: a v1-frozen task dies when thawed, running none of its
        code; the engine cannot kill a paused container itself (podman waits for an exit
        that the freezer holds back)."""
        for pid in self.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def channel_peer_inode(accepted_inode: int | None, container_pid: int) -> int | None:
    """The worker's end of a relayed channel: the peer of the relay's accepted socket
    (which lives in the container's network namespace, where the worker connected)."""
    if accepted_inode is None or container_pid <= 0:
        return None
    return unix_peer_inode(accepted_inode, netns_pid=container_pid)


def peer_lookup_works() -> bool:
    """Whether this kernel answers socket-diagnostics queries (``CONFIG_UNIX_DIAG``)."""
    first, second = socket.socketpair()
    with first, second:
        return unix_peer_inode(os.fstat(first.fileno()).st_ino) == os.fstat(second.fileno()).st_ino
