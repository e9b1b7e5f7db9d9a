"""Freezing a whole job: every process and thread of it stops until the harness thaws it.

The trusted side freezes the candidate's worker between timed batches, so no thread of
it (nor a child, a grandchild or a ``clone(CLONE_VM)`` helper: all live in the job's
cgroup) runs while the parent prepares inputs, reads outputs or times the reference.

- ``cgroup-v1``: ``freezer.state`` ← ``FROZEN``; the kernel answers ``FREEZING`` until
  every task is stopped, so :meth:`CgroupV1Freezer.freeze` polls until ``FROZEN``.
- ``cgroup-v2``: ``cgroup.freeze`` ← ``1``; done when ``cgroup.events`` says ``frozen 1``.
- ``sigstop``: no freezer here: SIGSTOP every pid of the job's cgroup, again and again
  until every thread of every member is stopped and no new member appeared (a running
  member could fork or SIGCONT another between rounds).

A freeze that does not complete within its timeout thaws the job again and raises
:class:`FreezeError` (an infrastructure failure, never the candidate's verdict). See
docs/design/sandbox.md ("Measuring a job from outside").
"""

from __future__ import annotations

import os
import signal
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path

from kerneltrials.sandbox._hostcgroup import read_or_empty

#: How often a freeze in progress is polled (the kernel has no notification we can block on
#: in v1; v2's cgroup.events supports poll(), but a short sleep is as fast in practice).
_POLL_S = 0.0005


class FreezeError(RuntimeError):
    """The job could not be frozen or thawed (a harness failure, not the candidate's)."""


class Freezer(ABC):
    """Stops and resumes every process of one job."""

    kind: str  # "cgroup-v1" | "cgroup-v2" | "sigstop" (reported in ``isolation["freezer"]``)

    @abstractmethod
    def freeze(self, timeout_s: float) -> None:
        """Stop every task; returns only when all are stopped (else :class:`FreezeError`)."""

    @abstractmethod
    def thaw(self) -> None:
        """Let every task run again."""

    @abstractmethod
    def is_frozen(self) -> bool:
        """True when the kernel reports every task stopped."""


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text)
    except OSError as error:
        raise FreezeError(f"cannot write {path}: {error}") from error


class CgroupV1Freezer(Freezer):
    """The v1 ``freezer`` controller of one job cgroup directory."""

    kind = "cgroup-v1"

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def freeze(self, timeout_s: float) -> None:
        state = self.directory / "freezer.state"
        _write(state, "FROZEN")
        end = time.monotonic() + timeout_s
        while read_or_empty(state).strip() != "FROZEN":
            if time.monotonic() >= end:
                self.thaw()
                raise FreezeError(
                    f"{self.directory} did not freeze within {timeout_s:g} s "
                    f"(state {read_or_empty(state).strip() or 'unreadable'}): a task is stuck "
                    "in the kernel (uninterruptible sleep)"
                )
            # Writing FROZEN again retries the tasks that were busy in the kernel.
            time.sleep(_POLL_S)
            _write(state, "FROZEN")

    def thaw(self) -> None:
        _write(self.directory / "freezer.state", "THAWED")

    def is_frozen(self) -> bool:
        return read_or_empty(self.directory / "freezer.state").strip() == "FROZEN"


class CgroupV2Freezer(Freezer):
    """The v2 core freezer (``cgroup.freeze``) of one job cgroup directory."""

    kind = "cgroup-v2"

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def freeze(self, timeout_s: float) -> None:
        _write(self.directory / "cgroup.freeze", "1")
        end = time.monotonic() + timeout_s
        while not self.is_frozen():
            if time.monotonic() >= end:
                self.thaw()
                raise FreezeError(f"{self.directory} did not freeze within {timeout_s:g} s")
            time.sleep(_POLL_S)

    def thaw(self) -> None:
        _write(self.directory / "cgroup.freeze", "0")

    def is_frozen(self) -> bool:
        return "frozen 1" in read_or_empty(self.directory / "cgroup.events").splitlines()


class SigstopFreezer(Freezer):
    """SIGSTOP/SIGCONT of every member of the job's cgroup, where no freezer exists.

    Weaker than a freezer: a job process the harness does not list (there is none while
    the cgroup holds every descendant) would keep running, and a stopped job can see that
    it was stopped (its parent gets SIGCHLD). The cgroup still holds every descendant.
    """

    kind = "sigstop"

    def __init__(self, list_pids: Callable[[], set[int]]) -> None:
        self._list_pids = list_pids
        self._frozen = False

    def freeze(self, timeout_s: float) -> None:
        end = time.monotonic() + timeout_s
        self._frozen = True
        stopped: set[int] = set()
        while True:
            members = self._list_pids()
            for pid in members:
                _signal(pid, signal.SIGSTOP)
            if members == stopped and all(_is_stopped(pid) for pid in members):
                return
            stopped = members
            if time.monotonic() >= end:
                self.thaw()
                raise FreezeError(f"the job's processes did not all stop within {timeout_s:g} s")
            time.sleep(_POLL_S)

    def thaw(self) -> None:
        self._frozen = False
        for pid in self._list_pids():
            _signal(pid, signal.SIGCONT)

    def is_frozen(self) -> bool:
        return self._frozen and all(_is_stopped(pid) for pid in self._list_pids())


def _signal(pid: int, number: int) -> None:
    try:
        os.kill(pid, number)
    except ProcessLookupError:
        pass


def _is_stopped(pid: int) -> bool:
    """Every thread of ``pid`` stopped (T), traced-stopped (t), dead or a zombie."""
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return True  # gone
    for tid in threads:
        stat = read_or_empty(Path(f"/proc/{pid}/task/{tid}/stat"))
        state = stat.rpartition(")")[2].split()[:1]
        if state and state[0] not in ("T", "t", "Z", "X"):
            return False
    return True


def freezer_for(directory: Path | None, version: int) -> Freezer | None:
    """The cgroup freezer of a job's freezer directory, if the kernel offers one there."""
    if directory is None:
        return None
    if version == 1 and (directory / "freezer.state").exists():
        return CgroupV1Freezer(directory)
    if version == 2 and (directory / "cgroup.freeze").exists():
        return CgroupV2Freezer(directory)
    return None
