"""The ``process`` sandbox: one child process per job, hardened where the machine allows.

Layers, each reported in ``isolation`` (what is active, and under ``missing`` why a layer
is not): own session and process group; rlimits (CPU time, file size, open files); a
per-job cgroup with memory and pids limits (:mod:`._cgroups`); new network and PID
namespaces and a read-only filesystem view (:mod:`._namespaces`); an environment rebuilt
from an allow-list; captured, trimmed and redacted output. See docs/design/sandbox.md.
"""

from __future__ import annotations

import os
import resource
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

from kerneltrials._scratch import make_scratch_dir
from kerneltrials.sandbox._base import (
    ExitInfo,
    JobSpec,
    Sandbox,
    SandboxedProcess,
    SandboxLimits,
    SandboxStartError,
)
from kerneltrials.sandbox._cgroups import JobCgroup, create_job_cgroup
from kerneltrials.sandbox._channel import CHANNEL_ENV
from kerneltrials.sandbox._env import is_secret_name, redact, trim
from kerneltrials.sandbox._namespaces import (
    bwrap_command,
    resolve_isolation_level,
    unshare_command,
)
from kerneltrials.sandbox._registry import register_sandbox

#: Bytes of each captured stream read back (head and tail); the rest is never loaded.
_CAPTURE_EDGE_BYTES = 64 * 1024


def _apply_rlimits(limits: SandboxLimits) -> None:
    if limits.cpu_time_s is not None:
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_time_s, limits.cpu_time_s + 5))
    if limits.max_file_size_bytes is not None:
        size = limits.max_file_size_bytes
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    if limits.max_open_files is not None:
        count = limits.max_open_files
        resource.setrlimit(resource.RLIMIT_NOFILE, (count, count))


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
    ) -> None:
        self.popen = popen
        self.channel = channel
        self.job = job
        self.isolation = isolation
        self._log_dir = log_dir
        self._cgroup = cgroup
        self._deadline = time.monotonic() + job.limits.wall_timeout_s
        self._exit: ExitInfo | None = None

    def _kill_everything(self) -> None:
        if self._cgroup is not None:
            self._cgroup.kill_all()
        try:
            os.killpg(self.popen.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def _finish(self, timed_out: bool = False) -> ExitInfo:
        if self._exit is not None:
            return self._exit
        # Grandchildren may outlive the main process: they die with the job, always.
        self._kill_everything()
        returncode, signal_number = signal_from_returncode(
            self.popen.wait(), wrapped=self.isolation["level"] != "none"
        )
        memory_hit = pids_hit = False
        if self._cgroup is not None:
            memory_hit = self._cgroup.is_memory_limit_hit()
            pids_hit = self._cgroup.is_pids_limit_hit()
            self._cgroup.remove()
        self._exit = ExitInfo(
            returncode=returncode,
            signal=signal_number,
            timed_out=timed_out,
            timeout_s=self.job.limits.wall_timeout_s if timed_out else None,
            memory_limit_hit=memory_hit,
            pids_limit_hit=pids_hit,
            stdout=read_capture(self._log_dir / "stdout"),
            stderr=read_capture(self._log_dir / "stderr"),
        )
        self.channel.close()
        for name in ("stdout", "stderr"):
            (self._log_dir / name).unlink(missing_ok=True)
        self._log_dir.rmdir()
        return self._exit

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
        self._kill_everything()
        return self._finish(timed_out=reason == "timeout")


@register_sandbox("process")
class ProcessSandbox(Sandbox):
    """A child per job: session, rlimits, cgroup limits, namespaces, allow-listed env.

    Args:
        isolation: ``auto`` (the strongest level that works here), ``bwrap``, ``unshare``
            or ``none``; a level that does not work here falls back to ``none`` and says so.
        cgroups: set False to skip cgroup limits (they are reported missing).
    """

    name = "process"

    def __init__(self, isolation: str = "auto", cgroups: bool = True) -> None:
        self.level, self._level_problems = resolve_isolation_level(isolation)
        self.use_cgroups = cgroups

    def features(self) -> dict[str, Any]:
        wrapped = self.level != "none"
        missing = list(self._level_problems)
        if self.level != "bwrap":
            missing.append("readonly_root: needs bwrap (Debian package bubblewrap)")
        return {
            "backend": "process",
            "level": self.level,
            "session": True,
            "rlimits": True,
            "env_allowlist": True,
            "network_isolated": wrapped,
            "pid_namespace": wrapped,
            "readonly_root": self.level == "bwrap",
            "memory_limit": None,
            "pids_limit": None,
            "group_kill": "process-group",
            "missing": missing,
        }

    def start(self, job: JobSpec) -> SandboxedProcess:
        job.scratch_dir.mkdir(parents=True, exist_ok=True)
        isolation = self.features()
        cgroup = self._create_cgroup(job, isolation)
        parent_end, child_end = socket.socketpair()
        log_dir = make_scratch_dir("logs")
        env = sanitize_job_env(job.env, job.scratch_dir)
        env[CHANNEL_ENV] = f"fd:{child_end.fileno()}"
        try:
            popen = self._spawn(job, env, log_dir, child_end, cgroup)
        except (OSError, subprocess.SubprocessError) as error:
            parent_end.close()
            if cgroup is not None:
                cgroup.remove()
            raise SandboxStartError(f"cannot start {job.label}: {error}") from error
        finally:
            child_end.close()
        return ProcessJob(popen, parent_end, job, log_dir, cgroup, isolation)

    def _create_cgroup(self, job: JobSpec, isolation: dict[str, Any]) -> JobCgroup | None:
        if not self.use_cgroups:
            isolation["missing"].append("cgroup: disabled")
            return None
        cgroup, problems = create_job_cgroup(job.label, job.limits)
        isolation["missing"] += problems
        if cgroup is not None:
            version = f"cgroup-v{cgroup.version}"
            isolation["memory_limit"] = version if "memory" in cgroup.active else None
            isolation["pids_limit"] = version if "pids" in cgroup.active else None
            isolation["group_kill"] = version
        return cgroup

    def _spawn(
        self,
        job: JobSpec,
        env: dict[str, str],
        log_dir: Path,
        child_end: socket.socket,
        cgroup: JobCgroup | None,
    ) -> subprocess.Popen[bytes]:
        prefix = {"bwrap": bwrap_command, "unshare": unshare_command}.get(self.level)
        argv = [*prefix(job), *job.argv] if prefix else list(job.argv)

        def before_exec() -> None:
            if cgroup is not None:
                cgroup.enter()
            _apply_rlimits(job.limits)

        with open(log_dir / "stdout", "wb") as out, open(log_dir / "stderr", "wb") as err:
            return subprocess.Popen(
                argv,
                env=env,
                cwd=job.scratch_dir,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                pass_fds=(child_end.fileno(),),
                start_new_session=True,
                preexec_fn=before_exec,
            )
