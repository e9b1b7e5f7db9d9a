"""The ``process`` sandbox: one child process per job, in its own session.

This is the baseline backend; hardened isolation (cgroups, namespaces, bubblewrap) is
layered on top of it where the machine supports it, and ``isolation`` says which.
"""

from __future__ import annotations

import os
import resource
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from kerneltrials.sandbox._base import (
    ExitInfo,
    JobSpec,
    Sandbox,
    SandboxedProcess,
    SandboxLimits,
    SandboxStartError,
)
from kerneltrials.sandbox._env import redact, trim
from kerneltrials.sandbox._registry import register_sandbox


def _apply_rlimits(limits: SandboxLimits) -> None:
    if limits.cpu_time_s is not None:
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_time_s, limits.cpu_time_s + 5))
    if limits.max_file_size_bytes is not None:
        size = limits.max_file_size_bytes
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    if limits.max_open_files is not None:
        count = limits.max_open_files
        resource.setrlimit(resource.RLIMIT_NOFILE, (count, count))


class ProcessJob(SandboxedProcess):
    def __init__(
        self,
        popen: subprocess.Popen[bytes],
        channel: socket.socket,
        job: JobSpec,
        stdout_path: Path,
        stderr_path: Path,
        isolation: dict[str, Any],
    ) -> None:
        self.popen = popen
        self.channel = channel
        self.job = job
        self.isolation = isolation
        self._stdout_path = stdout_path
        self._stderr_path = stderr_path
        self._deadline = time.monotonic() + job.limits.wall_timeout_s
        self._exit: ExitInfo | None = None

    def seconds_left(self) -> float:
        return self._deadline - time.monotonic()

    def _kill_group(self) -> None:
        try:
            os.killpg(self.popen.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def _finish(self, timed_out: bool = False) -> ExitInfo:
        if self._exit is not None:
            return self._exit
        # Grandchildren may outlive the main process: the group dies with it.
        self._kill_group()
        returncode = self.popen.wait()
        self._exit = ExitInfo(
            returncode=returncode if returncode >= 0 else None,
            signal=-returncode if returncode < 0 else None,
            timed_out=timed_out,
            stdout=trim(redact(self._read(self._stdout_path))),
            stderr=trim(redact(self._read(self._stderr_path))),
        )
        self.channel.close()
        return self._exit

    @staticmethod
    def _read(path: Path) -> str:
        try:
            return path.read_bytes().decode("utf-8", "replace")
        except OSError:
            return ""

    def wait(self, timeout_s: float | None = None) -> ExitInfo | None:
        if self._exit is not None:
            return self._exit
        budget = self.seconds_left() if timeout_s is None else min(timeout_s, self.seconds_left())
        try:
            self.popen.wait(timeout=max(budget, 0.0))
        except subprocess.TimeoutExpired:
            if self.seconds_left() <= 0:
                return self._finish(timed_out=True)
            return None
        return self._finish()

    def kill(self, reason: str = "killed") -> ExitInfo:
        self._kill_group()
        return self._finish(timed_out=reason == "timeout")


@register_sandbox("process")
class ProcessSandbox(Sandbox):
    """A child per job: own session and process group, rlimits, allow-listed env."""

    name = "process"

    def features(self) -> dict[str, Any]:
        return {"backend": "process", "session": True, "rlimits": True, "env_allowlist": True}

    def start(self, job: JobSpec) -> SandboxedProcess:
        job.scratch_dir.mkdir(parents=True, exist_ok=True)
        parent_end, child_end = socket.socketpair()
        log_dir = Path(tempfile.mkdtemp(prefix="kt-logs-"))
        stdout_path, stderr_path = log_dir / "stdout", log_dir / "stderr"
        env = dict(job.env)
        env.update(
            KERNELTRIALS_CHANNEL=f"fd:{child_end.fileno()}",
            HOME=str(job.scratch_dir),
            TMPDIR=str(job.scratch_dir),
        )
        try:
            with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
                popen = subprocess.Popen(
                    job.argv,
                    env=env,
                    cwd=job.scratch_dir,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=err,
                    pass_fds=(child_end.fileno(),),
                    start_new_session=True,
                    preexec_fn=lambda: _apply_rlimits(job.limits),
                )
        except OSError as error:
            parent_end.close()
            raise SandboxStartError(f"cannot start {job.label}: {error}") from error
        finally:
            child_end.close()
        return ProcessJob(popen, parent_end, job, stdout_path, stderr_path, self.features())
