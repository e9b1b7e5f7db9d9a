"""The sandbox interface: how the verifier starts an untrusted job and talks to it.

A job is one worker process (``python -m kerneltrials.verifier.worker``) that imports a
candidate, builds or runs it, and answers the parent over a private channel: a connected
stream socket whose peer only the job's worker holds. Everything a candidate prints goes
to captured stdout/stderr, never onto the channel. See docs/design/sandbox.md.
"""

from __future__ import annotations

import socket
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kerneltrials.sandbox._freezer import FreezeError, Freezer
from kerneltrials.sandbox._procfs import socket_holders


@dataclass(frozen=True)
class SandboxLimits:
    """Resource limits for one job; ``None`` means "not limited"."""

    wall_timeout_s: float = 600.0  # the whole job, from start to exit
    # CPU seconds: RLIMIT_CPU per process (summed over its threads), and the job's whole
    # cgroup usage where the machine accounts it (the sandbox kills the job at the limit).
    cpu_time_s: int | None = None
    memory_bytes: int | None = 8 * 1024**3  # cgroup memory limit
    max_processes: int | None = 64  # cgroup pids limit (threads count too)
    max_file_size_bytes: int | None = 2 * 1024**3  # RLIMIT_FSIZE
    max_open_files: int | None = 1024  # RLIMIT_NOFILE
    # The scratch dir is a tmpfs of this size inside the job (bwrap, docker): writes past
    # it fail with ENOSPC; levels without a mount namespace report it missing.
    scratch_bytes: int | None = 1024**3


@dataclass(frozen=True)
class Mount:
    """A host directory the job sees at the same path, read-only unless ``writable``."""

    path: Path
    writable: bool = False


@dataclass(frozen=True)
class JobSpec:
    """What to run and what it may touch."""

    argv: list[str]
    env: dict[str, str]  # already allow-listed by the caller; sandboxes filter again
    scratch_dir: Path  # the job's own writable directory (cwd, HOME, TMPDIR)
    mounts: list[Mount] = field(default_factory=list)
    limits: SandboxLimits = field(default_factory=SandboxLimits)
    gpu_index: int | None = None  # one device, by index, when the job needs one
    label: str = "job"  # for logs and error messages
    #: The module ``argv`` runs (``python -m MODULE args``), where a backend may start the
    #: job from a process that imported it already (the process backend's zygote).
    preload: str | None = None


@dataclass(frozen=True)
class ExitInfo:
    """How a job ended, as the sandbox observed it (never as the job claims)."""

    returncode: int | None  # None while running or when unknown
    signal: int | None = None  # the signal that killed the main process
    timed_out: bool = False
    memory_limit_hit: bool = False
    pids_limit_hit: bool = False
    stdout: str = ""  # trimmed and redacted
    stderr: str = ""  # trimmed and redacted
    timeout_s: float | None = None  # the wall-clock limit, when the job hit it
    # CPU seconds the whole job used, from its cgroup (outside the job's reach); None
    # where the machine does not account it.
    cpu_time_s: float | None = None
    # Ended by its CPU-time limit: SIGXCPU, or killed with its usage at the limit.
    cpu_limit_hit: bool = False

    def describe(self) -> str:
        """A short human reason, e.g. ``killed by signal 11 (SIGSEGV)``."""
        import signal as signal_module

        limits = [
            name
            for name, hit in (
                ("memory limit exceeded", self.memory_limit_hit),
                ("process limit exceeded", self.pids_limit_hit),
                ("CPU time limit exceeded", self.cpu_limit_hit),
            )
            if hit
        ]
        if self.timed_out:
            after = f" after {self.timeout_s:g} s" if self.timeout_s is not None else ""
            return "; ".join([f"timeout{after}", *limits])
        if limits:
            return "; ".join(limits)
        if self.signal is not None:
            try:
                name = signal_module.Signals(self.signal).name
            except ValueError:
                name = "unknown"
            return f"killed by signal {self.signal} ({name})"
        return f"exit code {self.returncode}"


class SandboxStartError(RuntimeError):
    """The sandbox could not start a job: an infrastructure failure, not the candidate's."""


class SandboxedProcess(ABC):
    """A running job. ``channel`` is the parent's end of the private socket."""

    channel: socket.socket
    isolation: dict[str, Any]  # which isolation features are active for this job
    _deadline: float  # time.monotonic() at which the job's wall clock runs out

    @abstractmethod
    def wait(self, timeout_s: float | None = None) -> ExitInfo | None:
        """Wait up to ``timeout_s`` for the job to exit; ``None`` if it is still running."""

    @abstractmethod
    def kill(self, reason: str = "killed") -> ExitInfo:
        """Kill the job and everything it started; returns how it ended."""

    def stop_now(self) -> None:
        """Kill the job's processes from any thread, frozen or not, without waiting: the
        thread that owns the job sees it die and records how it ended (``kill``)."""
        self.kill("interrupted")

    def cpu_time_s(self) -> float | None:
        """CPU seconds the job has used so far (its cgroup's account; the job cannot
        change it), or ``None`` where this machine does not account it."""
        return None

    def cpu_time_breakdown(self) -> dict[str, float] | None:
        """``{"user_s", "system_s", "total_s"}`` CPU seconds of the job so far, from its
        cgroup (readable while frozen); ``None`` where not accounted."""
        return None

    # -- measuring from outside: freeze, list, find the worker (docs/design/sandbox.md) --

    _frozen_since: float | None = None

    def _job_freezer(self) -> Freezer | None:
        """The backend's freezer for this job, or ``None`` (then :meth:`freeze` raises)."""
        return None

    def freeze(self, timeout_s: float = 5.0) -> None:
        """Stop every process and thread of the job (children, grandchildren and
        ``clone(CLONE_VM)`` helpers included: the job's whole cgroup) and return once all
        are stopped. Which mechanism: ``isolation["freezer"]``.

        Raises:
            FreezeError: no freezer for this job, or not every task stopped in ``timeout_s``
                (the job is thawed again): a harness failure, not the candidate's.
        """
        freezer = self._job_freezer()
        if freezer is None:
            raise FreezeError(f"{self.isolation.get('backend')} job cannot be frozen here: "
                              f"no freezer ({self.isolation.get('freezer')})")
        freezer.freeze(timeout_s)
        if self._frozen_since is None:
            self._frozen_since = time.monotonic()

    def thaw(self) -> None:
        """Let the job run again. Time spent frozen is given back to its wall clock."""
        freezer = self._job_freezer()
        if freezer is None:
            raise FreezeError("job cannot be thawed: no freezer")
        freezer.thaw()
        if self._frozen_since is not None:
            self.extend_deadline(time.monotonic() - self._frozen_since)
            self._frozen_since = None

    @property
    def is_frozen(self) -> bool:
        """Whether the kernel reports every task of the job stopped right now."""
        freezer = self._job_freezer()
        return freezer is not None and freezer.is_frozen()

    def pids(self) -> list[int]:
        """Host pids of the job's processes (its cgroup's members), sorted; empty once it
        ended or where the backend cannot list them."""
        return []

    def _channel_peer_inode(self) -> int | None:
        """The inode of the worker's end of the channel, where the backend knows it."""
        return None

    def _main_pid(self) -> int | None:
        """The host pid of the job's main process (the fallback worker pid)."""
        return None

    def channel_holder_pids(self) -> list[int]:
        """Job processes holding the worker's end of the channel, oldest first."""
        inode = self._channel_peer_inode()
        return [] if inode is None else socket_holders(self.pids(), inode)

    def channel_holder_pid(self) -> int | None:
        """The host pid of the worker the parent talks to: the job process holding the
        channel's peer end (the oldest one, when it forked children that inherited it).

        Where the peer end cannot be known (``isolation["channel_holder"]`` says how it
        is found), the job's main process; ``None`` when no job process holds it.
        """
        if self._channel_peer_inode() is None:
            return self._main_pid()
        holders = self.channel_holder_pids()
        return holders[0] if holders else None

    def seconds_left(self) -> float:
        """Wall-clock seconds until the job's timeout."""
        return self._deadline - time.monotonic()

    def extend_deadline(self, seconds: float) -> None:
        """Give the job ``seconds`` more wall clock: time it spent waiting on the harness
        (a worker started early, idle while the build ran) is not the job's own."""
        self._deadline += max(0.0, seconds)


class Sandbox(ABC):
    """An isolation backend. One instance can start many jobs."""

    name: str = "abstract"

    @abstractmethod
    def start(self, job: JobSpec) -> SandboxedProcess:
        """Start ``job``; raises :class:`SandboxStartError` when the backend cannot."""

    def prestart(self, job: JobSpec) -> None:
        """Begin, without waiting, what starting a job like ``job`` will need, so a later
        :meth:`start` of it is quicker (a backend with nothing to prepare does nothing).
        Only ``job``'s program, environment and device matter; no job starts."""
        return None

    def features(self) -> dict[str, Any]:
        """The isolation features this backend provides on this machine."""
        return {}
