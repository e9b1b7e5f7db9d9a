"""A running ``process`` job: waiting, killing, CPU accounting and the exit report.

Shared helpers for both backends (the job's environment, captured output, wrapped exit
statuses) live here too. See docs/design/sandbox.md.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

from kerneltrials.sandbox._base import ExitInfo, JobSpec, SandboxedProcess
from kerneltrials.sandbox._cgroups import JobCgroup
from kerneltrials.sandbox._env import is_secret_name, redact, trim
from kerneltrials.sandbox._freezer import Freezer
from kerneltrials.sandbox.zygote._client import ForkedJob

#: Bytes of each captured stream read back (head and tail); the rest is never loaded.
_CAPTURE_EDGE_BYTES = 64 * 1024
#: How often a job with a CPU-time limit has its cgroup account read while it runs.
_CPU_POLL_S = 0.25
#: How long a killed forked job's intermediate may take to report the job's end.
_FORKED_EXIT_WAIT_S = 10.0


def sanitize_job_env(env: dict[str, str], scratch_dir: Path) -> dict[str, str]:
    """The caller's env filtered again (no secret-looking names) plus the job's own dirs."""
    clean = {
        name: value
        for name, value in env.items()
        if not is_secret_name(name) or name.startswith("KERNELTRIALS_")
    }
    clean.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    clean.update(HOME=str(scratch_dir), TMPDIR=str(scratch_dir))
    return clean


def remove_log_dir(log_dir: Path) -> None:
    """A job's captured stdout and stderr, and their directory, once read (or unused)."""
    for name in ("stdout", "stderr"):
        (log_dir / name).unlink(missing_ok=True)
    log_dir.rmdir()


def read_capture(path: Path) -> str:
    """Head and tail of a captured stream, trimmed and redacted."""
    try:
        with open(path, "rb") as stream:
            size = os.fstat(stream.fileno()).st_size
            if size <= 2 * _CAPTURE_EDGE_BYTES:
                data = stream.read()
            else:
                head = stream.read(_CAPTURE_EDGE_BYTES)
                stream.seek(size - _CAPTURE_EDGE_BYTES)
                skipped = f"\n… [{size - 2 * _CAPTURE_EDGE_BYTES} bytes skipped] …\n".encode()
                data = head + skipped + stream.read()
    except OSError:
        return ""
    return trim(redact(data.decode("utf-8", "replace")))


def signal_from_returncode(returncode: int, wrapped: bool) -> tuple[int | None, int | None]:
    """(returncode, signal): a wrapper (bwrap, unshare) reports a signal N as 128 + N."""
    if returncode < 0:
        return None, -returncode
    if wrapped and 128 < returncode <= 128 + 64:
        return None, returncode - 128
    return returncode, None


def is_cpu_limit_hit(
    signal_number: int | None, cpu_time_s: float | None, limit_s: int | None
) -> bool:
    """Did a job end by its CPU-time limit? SIGXCPU is RLIMIT_CPU's soft limit (SIGKILL
    its hard one, or the sandbox's kill at the cgroup account's limit)."""
    if limit_s is None:
        return False
    used = cpu_time_s if cpu_time_s is not None else 0.0
    killed_near_limit = signal_number == signal.SIGKILL and used >= limit_s * 0.98
    return signal_number == signal.SIGXCPU or used >= limit_s or killed_near_limit


class ProcessJob(SandboxedProcess):
    """A running ``process`` job; ``wait``/``kill`` always end with everything it started."""

    def __init__(
        self,
        popen: subprocess.Popen[bytes],
        channel: socket.socket,
        job: JobSpec,
        log_dir: Path,
        cgroup: JobCgroup | None,
        isolation: dict[str, Any],
        freezer: Freezer | None = None,
        channel_peer_inode: int | None = None,
    ) -> None:
        self.popen = popen
        self.channel = channel
        self.job = job
        self.isolation = isolation
        self._log_dir = log_dir
        self._cgroup = cgroup
        self._deadline = time.monotonic() + job.limits.wall_timeout_s
        self._exit: ExitInfo | None = None
        self._freezer = freezer
        self._peer_inode = channel_peer_inode  # the socketpair end the worker inherited

    def cpu_time_s(self) -> float | None:
        if self._exit is not None:
            return self._exit.cpu_time_s
        return self._cgroup.cpu_time_s() if self._cgroup is not None else None

    def cpu_time_breakdown(self) -> dict[str, float] | None:
        if self._exit is not None or self._cgroup is None:
            return None
        return self._cgroup.cpu_breakdown()

    def _job_freezer(self) -> Freezer | None:
        return self._freezer if self._exit is None else None

    def pids(self) -> list[int]:
        if self._exit is not None or self._cgroup is None:
            return []
        return sorted(self._cgroup.member_pids())

    def _channel_peer_inode(self) -> int | None:
        return self._peer_inode

    def _main_pid(self) -> int | None:
        return self.popen.pid if self._exit is None else None

    def _kill_everything(self) -> None:
        if self._cgroup is not None:
            self._cgroup.kill_all()
        try:
            os.killpg(self.popen.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def _main_ended(self, timeout_s: float) -> bool:
        """Has the job's main process ended (waiting up to ``timeout_s``)?"""
        try:
            self.popen.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return False
        return True

    def _main_exit(self) -> tuple[int | None, int | None]:
        """(returncode, signal) of the main process, once everything was killed."""
        return signal_from_returncode(self.popen.wait(), wrapped=self.isolation["level"] != "none")

    def _finish(self, timed_out: bool = False) -> ExitInfo:
        if self._exit is not None:
            return self._exit
        # Grandchildren may outlive the main process: they die with the job, always.
        self._kill_everything()
        returncode, signal_number = self._main_exit()
        memory_hit = pids_hit = False
        cpu_time_s = None
        if self._cgroup is not None:
            memory_hit = self._cgroup.is_memory_limit_hit()
            pids_hit = self._cgroup.is_pids_limit_hit()
            cpu_time_s = self._cgroup.cpu_time_s()
            self._cgroup.remove()
        self._exit = ExitInfo(
            returncode=returncode,
            signal=signal_number,
            timed_out=timed_out,
            timeout_s=self.job.limits.wall_timeout_s if timed_out else None,
            memory_limit_hit=memory_hit,
            pids_limit_hit=pids_hit,
            cpu_time_s=cpu_time_s,
            cpu_limit_hit=is_cpu_limit_hit(signal_number, cpu_time_s, self.job.limits.cpu_time_s),
            stdout=read_capture(self._log_dir / "stdout"),
            stderr=read_capture(self._log_dir / "stderr"),
        )
        self.channel.close()
        remove_log_dir(self._log_dir)
        return self._exit

    def _is_over_cpu_limit(self) -> bool:
        # RLIMIT_CPU binds each process alone: the cgroup account binds the whole job.
        limit = self.job.limits.cpu_time_s
        used = self.cpu_time_s() if limit is not None else None
        return used is not None and limit is not None and used >= limit

    def wait(self, timeout_s: float | None = None) -> ExitInfo | None:
        if self._exit is not None:
            return self._exit
        budget = self.seconds_left() if timeout_s is None else min(timeout_s, self.seconds_left())
        end = time.monotonic() + max(budget, 0.0)
        polled = self.job.limits.cpu_time_s is not None and self.cpu_time_s() is not None
        while True:
            step = end - time.monotonic()
            if self._main_ended(max(min(step, _CPU_POLL_S) if polled else step, 0.0)):
                return self._finish()
            if polled and self._is_over_cpu_limit():
                return self.kill("cpu limit")
            if self.seconds_left() <= 0:
                return self._finish(timed_out=True)
            if time.monotonic() >= end:
                return None

    def kill(self, reason: str = "killed") -> ExitInfo:
        self._kill_everything()
        return self._finish(timed_out=reason == "timeout")

    def stop_now(self) -> None:
        self._kill_everything()  # SIGKILL reaches frozen tasks too


class ForkedProcessJob(ProcessJob):
    """A ``process`` job a zygote forked into the sandbox around a holder (``popen``).

    The job's main process is the fork, not the holder: its end comes from the zygote's
    status pipe (``zygote.ForkedJob``), which only the trusted intermediate writes.
    """

    def __init__(self, popen: subprocess.Popen[bytes], channel: socket.socket, job: JobSpec,
                 log_dir: Path, cgroup: JobCgroup | None, isolation: dict[str, Any],
                 freezer: Freezer | None, channel_peer_inode: int | None,
                 forked: ForkedJob) -> None:
        super().__init__(popen, channel, job, log_dir, cgroup, isolation, freezer,
                         channel_peer_inode)
        self._forked = forked
        self._forked_exit: tuple[int | None, int | None] | None = None

    def _main_pid(self) -> int | None:
        return self._forked.pid if self._exit is None else None

    def _main_ended(self, timeout_s: float) -> bool:
        if self._forked_exit is None:
            self._forked_exit = self._forked.exit_status(timeout_s)
        return self._forked_exit is not None

    def _main_exit(self) -> tuple[int | None, int | None]:
        if self._forked_exit is None:
            # Everything in the job was killed: the intermediate reports at once.
            self._forked_exit = (self._forked.exit_status(_FORKED_EXIT_WAIT_S)
                                 or (None, int(signal.SIGKILL)))
        self._forked.close()
        self.popen.wait()  # the holder, killed with the job
        return self._forked_exit
