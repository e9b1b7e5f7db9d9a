"""The sandbox interface: how the verifier starts an untrusted job and talks to it.

A job is one worker process (``python -m kerneltrials.verifier._worker``) that imports a
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

    def cpu_time_s(self) -> float | None:
        """CPU seconds the job has used so far (its cgroup's account; the job cannot
        change it), or ``None`` where this machine does not account it."""
        return None

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

    def features(self) -> dict[str, Any]:
        """The isolation features this backend provides on this machine."""
        return {}
