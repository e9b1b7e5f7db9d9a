"""Zygotes, from the harness's side: one pre-imported process per (module, environment).

Every check starts two workers, and each used to pay ``import torch`` (about 2 s of CPU
here) and its warm-up. A zygote pays them once per harness process: it is a trusted
process (harness code and torch only, never a job's input) that forks each job into the
sandbox bwrap built for it (``__main__``, ``_join``). What a zygote must settle and how it
does is in docs/design/sandbox.md ("Starting a worker").

A zygote is keyed by everything native libraries read when they load: the module and
the job environment without the entries that name a job's own directories and channel.
It lives as long as the harness process (its control socket closes with it).
"""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from kerneltrials._scratch import make_scratch_dir
from kerneltrials.sandbox._channel import CHANNEL_ENV

#: Job-environment entries that differ per job: the zygote imports with its own, and what
#: its imports cached of them (tempfile's directory) is reset in each job (``__main__``).
PER_JOB_ENV = frozenset({"HOME", "TMPDIR", "PWD", CHANNEL_ENV})
#: Turns the zygote off for the process backend (``0``); read when a job starts.
ZYGOTE_ENV = "KERNELTRIALS_ZYGOTE"
#: How long a zygote may take to import its module and say it is ready.
READY_TIMEOUT_S = 120.0
#: How long a fork may take to report that the job started (or why it could not).
STARTED_TIMEOUT_S = 30.0


class ZygoteError(Exception):
    """The zygote could not start a job (the caller falls back or reports the sandbox)."""


def zygote_enabled() -> bool:
    return os.environ.get(ZYGOTE_ENV, "1") != "0"


@dataclass(frozen=True)
class ForkRequest:
    """One job for a zygote: the sandbox's holder, the job's user, limits and program."""

    holder_pid: int
    holder_start: int
    cwd: Path
    uid: int
    gid: int
    drops: bool
    rlimits: list[tuple[int, int, int]]
    env: dict[str, str]
    args: list[str]


@dataclass
class ForkedJob:
    """A job a zygote started: its host pid and the pipe its end is reported on."""

    pid: int
    status_fd: int
    _buffer: bytes = b""

    def exit_status(self, timeout_s: float | None) -> tuple[int | None, int | None] | None:
        """``(returncode, signal)`` once the job has ended; ``None`` if it has not within
        ``timeout_s``. A pipe that closes without a report (the intermediate killed) reads
        as SIGKILL."""
        end = None if timeout_s is None else time.monotonic() + max(0.0, timeout_s)
        while True:
            line = self._line(end)
            if line is None:
                return None
            if line == "":
                return (None, int(signal.SIGKILL))
            kind, _, rest = line.partition(" ")
            if kind == "exit":
                code, signal_text = rest.split()
                return (None if code == "-" else int(code),
                        None if signal_text == "-" else int(signal_text))

    def _line(self, end: float | None) -> str | None:
        while b"\n" not in self._buffer:
            wait = None if end is None else max(0.0, end - time.monotonic())
            ready, _, _ = select.select([self.status_fd], [], [], wait)
            if not ready:
                return None
            chunk = os.read(self.status_fd, 4096)
            if not chunk:
                return ""
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode()

    def close(self) -> None:
        try:
            os.close(self.status_fd)
        except OSError:
            pass


class Zygote:
    """One zygote process and the socket the harness asks it on.

    Made, it is importing; :meth:`wait_ready` waits until it can fork. A harness that
    knows a job is coming starts one early (:func:`prestart_zygote`), so the imports run
    beside its own work rather than before the job.
    """

    def __init__(self, module: str, env: dict[str, str]) -> None:
        self.module = module
        self._lock = threading.Lock()
        self._ready_lock = threading.Lock()
        self._ready: bool | None = None  # None: not yet known
        self._failure = ""
        home = make_scratch_dir("zygote")
        self._home = home
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        environment = {**env, "HOME": str(home), "TMPDIR": str(home)}
        environment.pop(CHANNEL_ENV, None)
        try:
            with open(home / "stderr", "wb") as err:
                self._process = subprocess.Popen(
                    [sys.executable, "-m", "kerneltrials.sandbox.zygote", module,
                     str(theirs.fileno())],
                    env=environment, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                    stderr=err, pass_fds=(theirs.fileno(),), start_new_session=True)
        except OSError:
            ours.close()
            (home / "stderr").unlink(missing_ok=True)
            home.rmdir()
            raise
        finally:
            theirs.close()
        self._socket = ours
        self._deadline = time.monotonic() + READY_TIMEOUT_S

    def wait_ready(self) -> None:
        """Return once the zygote has imported its module; raises ``ZygoteError`` (the
        zygote closed) when it did not within ``READY_TIMEOUT_S`` of its start."""
        with self._ready_lock:
            if self._ready is None:
                self._socket.settimeout(max(0.001, self._deadline - time.monotonic()))
                try:
                    ready = self._socket.recv(16)
                except OSError:
                    ready = b""
                self._socket.settimeout(None)
                self._ready = ready == b"ready"
                if not self._ready:
                    self._failure = f"the zygote for {self.module} did not start: {self._stderr()}"
                    self.close()
            if not self._ready:
                raise ZygoteError(self._failure)

    @property
    def ready(self) -> bool | None:
        """Whether it said it was ready; ``None`` until :meth:`wait_ready` has asked."""
        return self._ready

    def _stderr(self) -> str:
        try:
            return (self._home / "stderr").read_text(errors="replace")[-2000:]
        except OSError:
            return ""

    def alive(self) -> bool:
        return self._process.poll() is None

    def fork(self, request: ForkRequest, channel: int, stdout: int, stderr: int,
             cgroup_fds: list[int]) -> ForkedJob:
        """Fork one job into the sandbox around ``request.holder_pid``."""
        read_end, write_end = os.pipe()
        message = json.dumps({
            "holder_pid": request.holder_pid, "holder_start": request.holder_start,
            "cwd": str(request.cwd), "uid": request.uid,
            "gid": request.gid, "drops": request.drops, "rlimits": request.rlimits,
            "env": request.env, "args": request.args}).encode()
        try:
            with self._lock:
                socket.send_fds(self._socket, [message],
                                [channel, stdout, stderr, write_end, *cgroup_fds])
        except OSError as error:
            os.close(read_end)
            raise ZygoteError(f"the zygote for {self.module} is gone ({error})") from None
        finally:
            os.close(write_end)
        job = ForkedJob(pid=0, status_fd=read_end)
        line = job._line(time.monotonic() + STARTED_TIMEOUT_S)
        if line is None or not line.startswith("started "):
            job.close()
            reason = "no answer" if line is None else (line or "the fork ended at once")
            raise ZygoteError(f"the zygote could not start the job: {reason}")
        job.pid = int(line.split()[1])
        return job

    def close(self) -> None:
        try:
            self._socket.close()
        except OSError:
            pass
        if not self._ready:  # still importing (or failed): nothing of it is needed
            self._process.kill()
        try:
            self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        (self._home / "stderr").unlink(missing_ok=True)
        try:
            self._home.rmdir()
        except OSError:
            pass


_ZYGOTES: dict[tuple[str, tuple[tuple[str, str], ...]], Zygote] = {}
_FAILED: set[tuple[str, tuple[tuple[str, str], ...]]] = set()
_REGISTRY_LOCK = threading.Lock()


def _key(module: str, env: dict[str, str]) -> tuple[str, tuple[tuple[str, str], ...]]:
    return (module, tuple(sorted((k, v) for k, v in env.items() if k not in PER_JOB_ENV)))


def _registered(module: str, env: dict[str, str]) -> Zygote | None:
    """The zygote of this key, started now if there is none (or it died); ``None``
    where one could not start in this process."""
    key = _key(module, env)
    with _REGISTRY_LOCK:
        zygote = _ZYGOTES.pop(key, None)
        if zygote is not None:
            # One that ended before it was ready failed to start: waiting on it says why.
            if zygote.alive() or zygote.ready is None:
                _ZYGOTES[key] = zygote
                return zygote
            zygote.close()  # it died (killed from outside): its socket and directory go too
        if key in _FAILED:
            return None
        try:
            zygote = Zygote(module, env)
        except OSError as error:
            _give_up(key, f"the zygote for {module} could not start ({error})")
            return None
        _ZYGOTES[key] = zygote
        return zygote


def _give_up(key: tuple[str, tuple[tuple[str, str], ...]], why: str) -> None:
    print(f"kerneltrials: starting jobs without a zygote ({why})", file=sys.stderr)
    _FAILED.add(key)


def prestart_zygote(module: str, env: dict[str, str]) -> None:
    """Start the zygote :func:`zygote_for` will return for ``module`` under ``env``, and
    return at once: its imports (seconds) run while the harness does other work."""
    _registered(module, env)


def zygote_for(module: str, env: dict[str, str]) -> Zygote | None:
    """The zygote for ``module`` under ``env``, ready to fork (started on first use);
    ``None`` where one could not start in this process (the caller starts the job by
    exec instead)."""
    zygote = _registered(module, env)
    if zygote is None:
        return None
    try:
        zygote.wait_ready()
    except ZygoteError as error:
        key = _key(module, env)
        with _REGISTRY_LOCK:
            if _ZYGOTES.get(key) is zygote:
                del _ZYGOTES[key]
            _give_up(key, str(error))
        return None
    return zygote


@atexit.register
def close_zygotes() -> None:
    """End every zygote of this process (they would end with its socket anyway)."""
    with _REGISTRY_LOCK:
        zygotes = list(_ZYGOTES.values())
        _ZYGOTES.clear()
    for zygote in zygotes:
        zygote.close()
