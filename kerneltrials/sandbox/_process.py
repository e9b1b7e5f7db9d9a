"""The ``process`` sandbox: one child process per job, hardened where the machine allows.

Layers, each reported in ``isolation`` (what is active, and under ``missing`` why a layer
is not): an unprivileged user with no capabilities and ``no_new_privs``
(:mod:`._privilege`); own session and process group; rlimits (CPU time, file size, open
files); a per-job cgroup with memory and pids limits and a CPU account (:mod:`._cgroups`);
new network and PID namespaces, a minimal read-only view and a size-limited scratch tmpfs
(:mod:`._namespaces`, :mod:`._view`); an environment rebuilt from an allow-list; captured,
trimmed and redacted output. See docs/design/sandbox.md.
"""

from __future__ import annotations

import dataclasses
import os
import resource
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from kerneltrials._scratch import make_scratch_dir
from kerneltrials.sandbox._base import (
    JobSpec,
    Sandbox,
    SandboxedProcess,
    SandboxLimits,
    SandboxStartError,
)
from kerneltrials.sandbox._cgroups import JobCgroup, create_job_cgroup
from kerneltrials.sandbox._channel import CHANNEL_ENV
from kerneltrials.sandbox._freezer import Freezer, SigstopFreezer
from kerneltrials.sandbox._job import (
    ForkedProcessJob,
    ProcessJob,
    remove_log_dir,
    sanitize_job_env,
)
from kerneltrials.sandbox._live import track
from kerneltrials.sandbox._namespaces import level_command, probe_level, resolve_isolation_level
from kerneltrials.sandbox._privilege import (
    hand_over,
    privilege_report,
    resolve_job_user,
    unreachable_ancestor,
)
from kerneltrials.sandbox._procfs import socket_inode
from kerneltrials.sandbox._registry import register_sandbox
from kerneltrials.sandbox._view import view_report
from kerneltrials.sandbox.zygote._client import (
    ForkRequest,
    Zygote,
    ZygoteError,
    prestart_zygote,
    zygote_enabled,
    zygote_for,
)
from kerneltrials.sandbox.zygote._join import JOB_CHANNEL_FD, start_time

#: How long bwrap may take to run the holder a zygote's job joins.
HOLDER_START_TIMEOUT_S = 30.0


def _apply_rlimits(limits: SandboxLimits) -> None:
    for number, soft, hard in _rlimit_list(limits):
        resource.setrlimit(number, (soft, hard))


def _rlimit_list(limits: SandboxLimits) -> list[tuple[int, int, int]]:
    """(resource, soft, hard) of a job's limits: set before bwrap's exec, or by the
    zygote's fork (which gets them in its request)."""
    items = []
    if limits.cpu_time_s is not None:
        items.append((resource.RLIMIT_CPU, limits.cpu_time_s, limits.cpu_time_s + 5))
    if limits.max_file_size_bytes is not None:
        size = limits.max_file_size_bytes
        items.append((resource.RLIMIT_FSIZE, size, size))
    if limits.max_open_files is not None:
        items.append((resource.RLIMIT_NOFILE, limits.max_open_files, limits.max_open_files))
    return items


def _holder_program() -> str:
    """The holder bwrap runs in place of the job: ``sleep`` (coreutils), resolved."""
    found = shutil.which("sleep")
    if found is None:
        raise SandboxStartError("sleep not found: install the Debian package coreutils")
    return os.path.realpath(found)


def _find_holder(cgroup: JobCgroup, popen: subprocess.Popen[bytes],
                 program: str) -> tuple[int, int]:
    """The holder's host pid and start time, once it runs ``program`` (bwrap, then
    setpriv, exec it). No job code has run yet: every member of the cgroup is ours."""
    deadline = time.monotonic() + HOLDER_START_TIMEOUT_S
    while time.monotonic() < deadline:
        for pid in sorted(cgroup.member_pids()):
            try:
                if os.readlink(f"/proc/{pid}/exe") == program:
                    return pid, start_time(pid)
            except OSError:
                continue
        if popen.poll() is not None:
            raise OSError(f"the sandbox ended before its holder ran (status {popen.returncode})")
        time.sleep(0.002)
    raise OSError(f"the sandbox's holder did not start within {HOLDER_START_TIMEOUT_S:.0f} s")


@register_sandbox("process")
class ProcessSandbox(Sandbox):
    """A child per job: unprivileged user, session, rlimits, cgroups, namespaces, clean env.

    Args:
        isolation: ``auto`` (the strongest level that works here), ``bwrap``, ``unshare``
            or ``none``; a level that does not work here falls back to ``none`` and says so.
        cgroups: set False to skip cgroup limits (they are reported missing).
        user: ``"UID:GID"`` jobs run as when the harness is root (default ``65534:65534``);
            a harness that is not root runs jobs as itself (still without privileges).
        freezer: ``auto`` (the job cgroup's freezer, else SIGSTOP of its members) or
            ``sigstop`` (always the fallback: for tests, or a machine whose freezer hangs).
    """

    name = "process"

    def __init__(self, isolation: str = "auto", cgroups: bool = True,
                 user: str | None = None, freezer: str = "auto") -> None:
        if freezer not in ("auto", "sigstop"):
            raise ValueError(f"freezer={freezer!r}: expected 'auto' or 'sigstop'")
        self.freezer = freezer
        self.user = resolve_job_user(user)
        self._user_spec = user
        self.level, self._level_problems = resolve_isolation_level(isolation, user)
        self.use_cgroups = cgroups

    def features(self) -> dict[str, Any]:
        wrapped = self.level != "none"
        missing = list(self._level_problems)
        if self.level != "bwrap":
            missing.append("readonly_root: needs bwrap (Debian package bubblewrap)")
            missing.append("minimal_view: needs bwrap; the job sees the host filesystem "
                           f"through the permissions of uid {self.user.uid}")
            missing.append("scratch_quota: needs bwrap (a size-limited tmpfs)")
        return {
            "backend": "process",
            "level": self.level,
            "session": True,
            "rlimits": True,
            "env_allowlist": True,
            "network_isolated": wrapped,
            "pid_namespace": wrapped,
            "readonly_root": self.level == "bwrap",
            **privilege_report(self.user),
            "minimal_view": view_report() if self.level == "bwrap" else None,
            "scratch_quota_bytes": None,
            "memory_limit": None,
            "pids_limit": None,
            "cpu_accounting": None,
            "group_kill": "process-group",
            "freezer": None,
            "channel_holder": "socket-inode",
            "missing": missing,
        }

    def start(self, job: JobSpec) -> SandboxedProcess:
        self._check_can_start(job)
        job.scratch_dir.mkdir(parents=True, exist_ok=True)
        for path in [job.scratch_dir, *(m.path for m in job.mounts if m.writable)]:
            hand_over(path, self.user)
        isolation = self.features()
        if self.level == "bwrap":
            isolation["scratch_quota_bytes"] = job.limits.scratch_bytes
        cgroup = self._create_cgroup(job, isolation)
        freezer = self._freezer(cgroup, isolation)
        parent_end, child_end = socket.socketpair()
        peer_inode = socket_inode(child_end.fileno())
        log_dir = make_scratch_dir("logs")
        env = sanitize_job_env(job.env, job.scratch_dir)
        zygote = self._zygote(job, env, cgroup)
        if zygote is not None and cgroup is not None:
            try:
                return self._start_forked(job, zygote, env, log_dir, cgroup, isolation, freezer,
                                          parent_end, child_end, peer_inode)
            finally:
                child_end.close()
        env[CHANNEL_ENV] = f"fd:{child_end.fileno()}"
        try:
            popen = self._spawn(job, env, log_dir, (child_end.fileno(),), cgroup)
        except (OSError, subprocess.SubprocessError) as error:
            parent_end.close()
            if cgroup is not None:
                cgroup.remove()
            remove_log_dir(log_dir)
            raise SandboxStartError(f"cannot start {job.label}: {error}") from error
        finally:
            child_end.close()
        return track(ProcessJob(popen, parent_end, job, log_dir, cgroup, isolation, freezer,
                                peer_inode))

    def prestart(self, job: JobSpec) -> None:
        """Start the zygote that will fork ``job`` (its imports take seconds of a core)."""
        if self._forkable(job, cgroup=self.use_cgroups):
            assert job.preload is not None
            prestart_zygote(job.preload, sanitize_job_env(job.env, job.scratch_dir))

    def _forkable(self, job: JobSpec, *, cgroup: bool) -> bool:
        """Whether a zygote may fork ``job``: only a ``python -m`` job of a preloadable
        module, behind bwrap, with a job cgroup, from a root harness (joining another
        process's namespaces needs CAP_SYS_ADMIN)."""
        module = job.preload
        return (module is not None and self.level == "bwrap" and cgroup and self.user.drops
                and zygote_enabled() and job.argv[:3] == [sys.executable, "-m", module]
                and job.gpu_index is None)

    def _zygote(self, job: JobSpec, env: dict[str, str], cgroup: JobCgroup | None) -> Zygote | None:
        """The zygote that forks this job, or ``None`` (it is exec'd)."""
        if not self._forkable(job, cgroup=cgroup is not None):
            return None
        assert job.preload is not None
        return zygote_for(job.preload, env)

    def _start_forked(self, job: JobSpec, zygote: Zygote, env: dict[str, str], log_dir: Path,
                      cgroup: JobCgroup, isolation: dict[str, Any], freezer: Freezer | None,
                      parent_end: socket.socket, child_end: socket.socket,
                      peer_inode: int | None) -> SandboxedProcess:
        """bwrap builds the job's sandbox around a holder; the zygote forks the job into it."""
        holder = dataclasses.replace(job, argv=[_holder_program(), "infinity"])
        try:
            popen = self._spawn(holder, env, log_dir, (), cgroup)
        except (OSError, subprocess.SubprocessError) as error:
            parent_end.close()
            cgroup.remove()
            remove_log_dir(log_dir)
            raise SandboxStartError(f"cannot start {job.label}: {error}") from None
        cgroup_fds: list[int] = []
        outputs: list[int] = []
        try:
            holder_pid, holder_start = _find_holder(cgroup, popen, holder.argv[0])
            for directory in set(cgroup.dirs.values()):
                cgroup_fds.append(os.open(directory / "cgroup.procs", os.O_WRONLY))
            for name in ("stdout", "stderr"):
                outputs.append(os.open(log_dir / name, os.O_WRONLY | os.O_APPEND))
            request = ForkRequest(
                holder_pid=holder_pid, holder_start=holder_start, cwd=job.scratch_dir,
                uid=self.user.uid, gid=self.user.gid, drops=self.user.drops, rlimits=_rlimit_list(job.limits),
                # bwrap's --chdir sets PWD; the fork's environment says the same.
                env={**env, "PWD": str(job.scratch_dir), CHANNEL_ENV: f"fd:{JOB_CHANNEL_FD}"},
                args=job.argv[3:])
            forked = zygote.fork(request, child_end.fileno(), outputs[0], outputs[1], cgroup_fds)
        except (ZygoteError, OSError) as error:
            cgroup.kill_all()
            popen.wait()
            cgroup.remove()
            parent_end.close()
            remove_log_dir(log_dir)
            raise SandboxStartError(f"cannot start {job.label} from the zygote: {error}") from None
        finally:
            for fd in cgroup_fds + outputs:
                os.close(fd)
        isolation["started_by"] = "zygote"
        return track(ForkedProcessJob(popen, parent_end, job, log_dir, cgroup, isolation,
                                      freezer, peer_inode, forked))

    def _check_can_start(self, job: JobSpec) -> None:
        """A job that could not start unprivileged is the harness's failure, said early."""
        problem = probe_level(self.level, self._user_spec)
        if problem is not None:
            raise SandboxStartError(f"cannot start {job.label} unprivileged: {problem}")
        if self.level == "bwrap":  # its own view: host permissions above the mounts differ
            return
        for path in [job.scratch_dir.parent, *(mount.path for mount in job.mounts)]:
            blocked = unreachable_ancestor(path, self.user)
            if blocked is not None:
                raise SandboxStartError(
                    f"cannot start {job.label}: uid {self.user.uid} cannot reach {path} "
                    f"({blocked} does not let it search) at isolation level {self.level}"
                )

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
            isolation["cpu_accounting"] = version if cgroup.cpu_time_s() is not None else None
            isolation["group_kill"] = version
        return cgroup

    def _freezer(self, cgroup: JobCgroup | None, isolation: dict[str, Any]) -> Freezer | None:
        if cgroup is None:
            isolation["missing"].append("freezer: needs a job cgroup")
            return None
        freezer = cgroup.freezer() if self.freezer == "auto" else None
        if freezer is None:
            if self.freezer == "auto":
                isolation["missing"].append(
                    "freezer: no cgroup freezer here; the job is stopped with SIGSTOP of "
                    "every member of its cgroup (a stopped parent sees SIGCHLD)"
                )
            freezer = SigstopFreezer(cgroup.member_pids)
        isolation["freezer"] = freezer.kind
        return freezer

    def _spawn(
        self,
        job: JobSpec,
        env: dict[str, str],
        log_dir: Path,
        pass_fds: tuple[int, ...],
        cgroup: JobCgroup | None,
    ) -> subprocess.Popen[bytes]:
        argv = [*self.command_prefix(job), *job.argv]

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
                pass_fds=pass_fds,
                start_new_session=True,
                preexec_fn=before_exec,
            )

    def command_prefix(self, job: JobSpec) -> list[str]:
        """What runs before the job's argv: the namespaces of this level, then the drop
        to the job's user."""
        return level_command(self.level, job, self.user)
