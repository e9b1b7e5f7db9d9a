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
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Generic, TypeVar

from kerneltrials.sandbox import (
    ExitInfo,
    FreezeError,
    JobSpec,
    Mount,
    Sandbox,
    SandboxLimits,
    build_job_env,
    resolve_sandbox,
)
from kerneltrials.verifier.harness._openmp import worker_env
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


class WindowBroken(WorkerFailed):
    """The harness could not keep the job frozen between requests (the freezer failed, or
    the job used CPU while frozen): the harness's failure, never the candidate's. A
    :class:`WorkerFailed`, so every caller that handles a worker's failure handles it."""

    def __init__(self, reason: str) -> None:
        super().__init__("harness_window", reason)
        self.reason = reason


#: CPU seconds a frozen job may show between its freeze and its next thaw: the account of
#: the last instructions before every task stopped (well under a millisecond).
REST_CPU_SLACK_S = 0.02
#: How long a freeze may take: the freezer waits until each task gets a CPU to stop on,
#: which on a loaded machine takes tens of milliseconds.
FREEZE_TIMEOUT_S = 10.0


#: The module every run worker is (``python -m``), which a sandbox may preload.
WORKER_MODULE = "kerneltrials.verifier.worker"
#: The roles whose worker a zygote may fork, paying their imports once per process: the
#: two of every check, and the collect job of every build-cache miss (it imports torch and
#: the candidate; exec'd, torch's import was most of its time). The compile job runs the
#: build side's entry point, which imports no torch.
PRELOADED_ROLES = ("collect", "reference", "candidate")


def role_env(role: str, backend: str, extra_env: dict[str, str] | None = None) -> dict[str, str]:
    """What a worker of ``role`` on ``backend`` adds to the allow-listed environment.

    Both timed sides run on one OpenMP runtime; the collect job too, so that it starts
    from the same zygote as they do (a zygote serves one environment) rather than its own.
    """
    env = dict(extra_env or {})
    if role in PRELOADED_ROLES:
        env.update(worker_env(backend))
    return env


def worker_spec(role: str, job_dir: Path, mounts: list[Mount], limits: SandboxLimits,
                extra_env: dict[str, str] | None = None, gpu_index: int | None = None,
                wrapper: list[str] | None = None) -> JobSpec:
    """The sandbox job of a worker of ``role``; ``extra_env`` as :func:`role_env` gives it."""
    scratch = job_dir / f"scratch-{role}{'-wrapped' if wrapper else ''}"
    env = build_job_env({"PYTHONDONTWRITEBYTECODE": "1", **(extra_env or {})})
    preload = WORKER_MODULE if role in PRELOADED_ROLES and not wrapper else None
    return JobSpec(argv=[*(wrapper or []), *worker_argv(role)], env=env,
                   scratch_dir=scratch, mounts=mounts, limits=limits, gpu_index=gpu_index,
                   label=f"{role} worker", preload=preload)


def prestart_workers(sandbox: str, backend: str, job_dir: Path) -> Sandbox | None:
    """Make the sandbox called ``sandbox`` and have it begin what a check's workers on
    ``backend`` start from (the process backend's zygote, whose imports take seconds);
    return it at once, or ``None`` where it cannot be made (the check that starts a
    worker in it says why). ``job_dir`` only names the jobs' own directories, which no
    zygote is keyed by.

    The device workers of the cuda backend are exec'd, but its collect job is forked,
    so the collect job's spec is the one prepared.
    """
    try:
        made = resolve_sandbox(sandbox)
    except Exception:  # noqa: BLE001 - reported by the check, with its context
        return None
    made.prestart(worker_spec("collect", job_dir, [], SandboxLimits(),
                              extra_env=role_env("collect", backend)))
    return made


def worker_argv(role: str) -> list[str]:
    """The compile job runs the build side's entry point; every other role the worker
    that hosts candidate or reference code (it never imports the build machinery)."""
    if role == "compile":
        return [sys.executable, "-m", "kerneltrials.verifier.builds.compile_worker"]
    return [sys.executable, "-m", WORKER_MODULE, role]


class WorkerJob:
    """One worker process of one role, for the lifetime of one verification."""

    def __init__(self, sandbox: Sandbox, role: str, job_dir: Path, mounts: list[Mount],
                 limits: SandboxLimits, extra_env: dict[str, str] | None = None,
                 gpu_index: int | None = None, freeze_at_rest: bool = False,
                 wrapper: list[str] | None = None) -> None:
        """``wrapper``: an argv prefix the worker runs under, in the job (a profiler that
        launches its target); such a job is never forked from a zygote."""
        self.role = role
        self.nonce = secrets.token_hex(16)
        spec = worker_spec(role, job_dir, mounts, limits, extra_env, gpu_index, wrapper)
        self.process = sandbox.start(spec)
        self.exit_info: ExitInfo | None = None
        self._ready = False  # the worker answered hello (its imports are done)
        #: The job's processes when the worker answered hello, before any candidate code
        #: ran: a process that appears later is one the candidate made (new_processes).
        self.startup_pids: frozenset[int] = frozenset()
        self._exit_asked = False
        #: Between requests every process and thread of the job is frozen (when the job
        #: has a freezer): the candidate's code runs only inside a request's window.
        self.freeze_at_rest = freeze_at_rest and self.process.isolation.get("freezer") is not None
        #: The last request's window, timed by the parent: from the moment the request
        #: was written (and the job thawed) to its reply.
        self.window_s = 0.0
        self.rest = RestAccount()
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
        return self.reply(self.send(message, timeout_s))

    def send(self, message: Request[R], timeout_s: float) -> Pending[R]:
        """The first half of :meth:`request`: write the request and thaw the job. The
        parent may then ask another worker before it collects this one's :meth:`reply`
        (two workers set up in parallel); the window runs until that reply is read."""
        if not self._ready:
            self._receive(STARTUP, max(0.1, self.process.seconds_left()))
            self._ready = True
            self.startup_pids = frozenset(self.process.pids())
            self._freeze()
        budget = max(0.1, min(timeout_s, self.process.seconds_left()))
        try:  # while frozen, the request waits in the socket buffer
            send_frame(self.process.channel, request_frame(message))
        except OSError:
            self._thaw_to_die()
            self.exit_info = self.process.wait(timeout_s=10) or self.process.kill()
            raise JobDied(self.role, self.exit_info, message.op) from None
        started = time.monotonic()
        self._thaw()
        return Pending(message=message, budget_s=budget, started=started)

    def reply(self, pending: Pending[R], whole_budget: bool = False) -> R:
        """The second half of :meth:`request`: the reply to ``pending``, checked and typed.

        ``whole_budget``: wait the request's whole budget from now, not what is left of it
        since it was sent: for the reference's work that shared the cores with the
        candidate's job, collected once that job is frozen (the candidate could have
        spun threads to slow it down; alone again, it gets the time it always had)."""
        message = pending.message
        # The wait is what is left of the request's budget; a timeout reports the budget.
        left_s = pending.budget_s if whole_budget else max(
            0.1, pending.budget_s - (time.monotonic() - pending.started))
        frame = self._receive(message.op, left_s, budget_s=pending.budget_s)
        self.window_s = time.monotonic() - pending.started
        self._freeze()
        _log.debug("%s %s: %.3f s", self.role, message.op, self.window_s)
        try:
            if frame.get("ok") is not True:
                raise self._failed(from_wire(Failure, {k: v for k, v in frame.items()
                                                       if k not in ("ok", "nonce", "worker_ms")}))
            return message.read_reply(frame)
        except (MalformedMessage, RecursionError) as error:  # nesting is the sender's choice
            self.exit_info = self.process.kill()
            raise ForgedReply(f"{self.role} worker sent a malformed {message.op} reply "
                              f"({error})") from None

    def _freeze(self) -> None:
        if not self.freeze_at_rest or self.exit_info is not None:
            return
        started = time.monotonic()
        try:
            self.process.freeze(FREEZE_TIMEOUT_S)
        except FreezeError as error:
            raise WindowBroken(f"harness:freeze:{error}") from None
        self.rest.freezes += 1
        self.rest.freeze_s += time.monotonic() - started
        self.rest.cpu_at_freeze = self.process.cpu_time_s()

    def _thaw(self) -> None:
        if not self.freeze_at_rest or not self.rest.freezes:
            return
        cpu_now = self.process.cpu_time_s()
        if cpu_now is not None and self.rest.cpu_at_freeze is not None:
            used = cpu_now - self.rest.cpu_at_freeze
            self.rest.cpu_s += max(0.0, used)
            if used > REST_CPU_SLACK_S:
                self.exit_info = self.process.kill()
                raise WindowBroken(f"harness:freezer_leak:the {self.role} job used {used:.3f} s "
                                   "of CPU while frozen")
        try:
            self.process.thaw()
        except FreezeError as error:
            raise WindowBroken(f"harness:thaw:{error}") from None

    def _thaw_to_die(self) -> None:
        """A frozen job cannot exit: thaw it for good before waiting for its end."""
        if self.freeze_at_rest and self.rest.freezes:
            self.freeze_at_rest = False
            try:
                self.process.thaw()
            except FreezeError:
                pass

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

    def _receive(self, during: str, wait_s: float,
                 budget_s: float | None = None) -> dict[str, Any]:
        """The next frame within ``wait_s``, checked: it must carry this job's nonce. A
        timeout is reported as one after ``budget_s`` (the request's whole budget)."""
        try:
            reply = recv_frame(self.process.channel, timeout_s=wait_s)
        except ChannelTimeout:
            self.exit_info = _as_timeout(self.process.kill("timeout"),
                                         wait_s if budget_s is None else budget_s)
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
        self._thaw_to_die()

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


@dataclass(frozen=True)
class Pending(Generic[R]):
    """A request written to a worker whose reply is not read yet."""

    message: Request[R]
    budget_s: float  # the request's timeout, counted from ``started``
    started: float  # time.monotonic() when the job was thawed


@dataclass
class RestAccount:
    """What freezing a job between its requests cost, and what the job did meanwhile."""

    freezes: int = 0
    freeze_s: float = 0.0  # the parent's time spent freezing (outside every window)
    cpu_s: float = 0.0  # CPU the job's cgroup accounted while it was frozen (should be ~0)
    cpu_at_freeze: float | None = None

    def summary(self) -> dict[str, float | int]:
        return {"freezes": self.freezes, "freeze_ms_mean": round(
            1000 * self.freeze_s / self.freezes, 3) if self.freezes else 0.0,
                "cpu_s_while_frozen": round(self.cpu_s, 4)}


def _as_timeout(info: ExitInfo, waited_s: float) -> ExitInfo:
    """The job stopped answering a request: a timeout after the request's own budget
    (the sandbox only knows the job's whole wall-clock limit)."""
    return replace(info, timed_out=True, timeout_s=round(waited_s, 3))
