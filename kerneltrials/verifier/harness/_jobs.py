"""Parent side of a worker job: start it in a sandbox, send requests, read replies.

The job's nonce goes to the worker in the first frame (``hello``), never through the
environment. A reply is trusted only as far as the parent checks it: a frame without the
nonce (or not a frame at all) is a forgery, and a worker that dies or stops answering
becomes :class:`JobDied` with the sandbox's own account of how it ended. See
docs/design/sandbox.md.
"""

from __future__ import annotations

import logging
import secrets
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from kerneltrials.sandbox import (
    ExitInfo,
    JobSpec,
    Mount,
    Sandbox,
    SandboxLimits,
    build_job_env,
)
from kerneltrials.verifier.harness._sanitize import sanitize_candidate_text
from kerneltrials.verifier.protocol import (
    ChannelClosed,
    ChannelTimeout,
    Exit,
    Failure,
    MalformedFrame,
    MalformedMessage,
    Request,
    from_wire,
    recv_frame,
    request_frame,
    send_frame,
    send_hello,
)

R = TypeVar("R")

_log = logging.getLogger("kerneltrials.verifier.jobs")


#: What a worker is doing until it answers hello: starting Python and torch, before any
#: candidate code (the harness's failure if it dies then, never the candidate's).
STARTUP = "startup"


class JobDied(Exception):
    """The worker exited, was killed, or stopped answering."""

    def __init__(self, role: str, exit_info: ExitInfo, during: str) -> None:
        super().__init__(f"{role} worker {exit_info.describe()} during {during}")
        self.role = role
        self.exit_info = exit_info
        self.during = during


class ForgedReply(Exception):
    """A frame on the channel did not carry the job's nonce, or its fields do not have
    the types of the reply it claims to be."""


MESSAGE_CHARS = 2000  # a WorkerFailed message (one exception's text)
DETAIL_CHARS = 4000  # its detail (a traceback, a compiler log): _stages trims it further


class WorkerFailed(Exception):
    """The worker answered with a failure of some ``kind`` (``protocol.WorkerFault``)."""

    def __init__(self, kind: str, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.detail = detail


def worker_argv(role: str) -> list[str]:
    """The compile job runs the build side's entry point; every other role the worker
    that hosts candidate or reference code (it never imports the build machinery)."""
    if role == "compile":
        return [sys.executable, "-m", "kerneltrials.verifier.builds.compile_worker"]
    return [sys.executable, "-m", "kerneltrials.verifier.worker", role]


class WorkerJob:
    """One worker process of one role, for the lifetime of one verification."""

    def __init__(self, sandbox: Sandbox, role: str, job_dir: Path, mounts: list[Mount],
                 limits: SandboxLimits, extra_env: dict[str, str] | None = None,
                 gpu_index: int | None = None) -> None:
        self.role = role
        self.nonce = secrets.token_hex(16)
        scratch = job_dir / f"scratch-{role}"
        env = build_job_env({"PYTHONDONTWRITEBYTECODE": "1", **(extra_env or {})})
        spec = JobSpec(argv=worker_argv(role), env=env, scratch_dir=scratch, mounts=mounts,
                       limits=limits, gpu_index=gpu_index, label=f"{role} worker")
        self.process = sandbox.start(spec)
        self.exit_info: ExitInfo | None = None
        self._ready = False  # the worker answered hello (its imports are done)
        #: The job's processes when the worker answered hello, before any candidate code
        #: ran: a process that appears later is one the candidate made (new_processes).
        self.startup_pids: frozenset[int] = frozenset()
        self._exit_asked = False
        try:  # buffered until the worker reads it; a worker that died shows at its first request
            send_hello(self.process.channel, self.nonce)
        except OSError:
            pass

    @property
    def isolation(self) -> dict[str, Any]:
        return dict(self.process.isolation)

    def request(self, message: Request[R], timeout_s: float) -> R:
        """Send one request and return the worker's successful reply, typed.

        The first request first waits for the worker to be ready (its answer to
        ``hello``): starting Python and torch counts against the job's wall clock, never
        against one request's ``timeout_s``. No candidate code runs before that answer.

        Raises :class:`WorkerFailed`, :class:`JobDied` or :class:`ForgedReply` (also for
        a reply whose fields do not have their types: replies are attacker-controlled).
        """
        if not self._ready:
            self._receive(STARTUP, max(0.1, self.process.seconds_left()))
            self._ready = True
            self.startup_pids = frozenset(self.process.pids())
        budget = max(0.1, min(timeout_s, self.process.seconds_left()))
        started = time.monotonic()
        try:
            send_frame(self.process.channel, request_frame(message))
        except OSError:
            self.exit_info = self.process.wait(timeout_s=10) or self.process.kill()
            raise JobDied(self.role, self.exit_info, message.op) from None
        frame = self._receive(message.op, budget)
        _log.debug("%s %s: %.3f s", self.role, message.op, time.monotonic() - started)
        try:
            if frame.get("ok") is not True:
                raise self._failed(from_wire(Failure, {k: v for k, v in frame.items()
                                                       if k not in ("ok", "nonce", "worker_ms")}))
            return message.read_reply(frame)
        except MalformedMessage as error:
            self.exit_info = self.process.kill()
            raise ForgedReply(f"{self.role} worker sent a malformed {message.op} reply "
                              f"({error})") from None

    def new_processes(self) -> list[int]:
        """Host pids of the job's processes that were not there at hello, read from the
        job's cgroup (kernel accounting the job cannot touch): e.g. a ``clone(CLONE_VM)``
        helper, which shares the worker's memory but is no thread of it, so the worker's
        own thread count never sees it. Empty where the backend cannot list processes."""
        if not self._ready or not self.startup_pids:
            return []
        return sorted(set(self.process.pids()) - self.startup_pids)

    @staticmethod
    def _failed(failure: Failure) -> WorkerFailed:
        # Candidate code writes these texts (exception messages, compiler output): they
        # reach the verdict, so they are capped and sanitised here, once (_sanitize).
        return WorkerFailed(sanitize_candidate_text(failure.kind, 80),
                            sanitize_candidate_text(failure.message, MESSAGE_CHARS),
                            sanitize_candidate_text(failure.detail, DETAIL_CHARS))

    def _receive(self, during: str, budget_s: float) -> dict[str, Any]:
        """The next frame, checked: it must carry this job's nonce."""
        try:
            reply = recv_frame(self.process.channel, timeout_s=budget_s)
        except ChannelTimeout:
            self.exit_info = _as_timeout(self.process.kill("timeout"), budget_s)
            raise JobDied(self.role, self.exit_info, during) from None
        except MalformedFrame as error:
            self.exit_info = self.process.kill()
            raise ForgedReply(f"{self.role} worker sent a malformed frame ({error})") from None
        except (ChannelClosed, OSError):
            self.exit_info = self.process.wait(timeout_s=10) or self.process.kill()
            raise JobDied(self.role, self.exit_info, during) from None
        if reply.get("nonce") != self.nonce:
            self.exit_info = self.process.kill()
            raise ForgedReply(f"{self.role} worker sent a frame without the job nonce")
        return reply

    def ask_to_exit(self) -> None:
        """Send ``exit`` without waiting (closing several workers overlaps their exits)."""
        if self.exit_info is not None or self._exit_asked:
            return
        self._exit_asked = True
        try:
            send_frame(self.process.channel, request_frame(Exit()))
        except OSError:
            pass

    def close(self) -> ExitInfo:
        """Ask the worker to exit; kill it if it does not."""
        if self.exit_info is not None:
            return self.exit_info
        if not self._ready:  # started early, never used (the build failed): nothing to wait for
            self.exit_info = self.process.kill()
            return self.exit_info
        self.ask_to_exit()
        try:
            recv_frame(self.process.channel, timeout_s=5)
        except (ChannelClosed, ChannelTimeout, MalformedFrame, OSError):
            pass
        self.exit_info = self.process.wait(timeout_s=5) or self.process.kill()
        return self.exit_info


def _as_timeout(info: ExitInfo, waited_s: float) -> ExitInfo:
    """The job stopped answering a request: a timeout after the request's own budget
    (the sandbox only knows the job's whole wall-clock limit)."""
    return replace(info, timed_out=True, timeout_s=round(waited_s, 3))
