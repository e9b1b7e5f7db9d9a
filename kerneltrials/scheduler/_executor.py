"""Executors: where verification jobs run. ``LocalExecutor`` runs them in this process's
threads (no Ray); ``RayExecutor`` (``_ray_executor``) on a local or remote Ray cluster.

Executors are found by name in ``EXECUTORS``. The Ray one is a lazy built-in, listed by
module path: this module never imports ``_ray_executor`` (which imports this one), so the
import graph has no cycle and Ray stays unimported until asked for. Other packages add
executors through the entry point group ``kerneltrials.executors``.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from kerneltrials._registry import Builtin, Registry
from kerneltrials.scheduler._gate import LocalGate
from kerneltrials.scheduler._jobs import build_job, run_job, verify_in_stages
from kerneltrials.tasks import TaskSpec
from kerneltrials.verifier import CheckOptions
from kerneltrials.verifier.verdict import Status, Verdict, migrate_verdict

#: How often ``verify_retrying`` tries again after an ``error`` verdict, and the first wait.
ERROR_RETRIES = 2
RETRY_BACKOFF_S = 2.0


class VerificationCancelled(Exception):
    """The executor was cancelled (an interrupted ``eval``): this attempt has no verdict,
    and nothing about it is stored."""


class Executor(ABC):
    """Verifies candidates; ``verify`` is thread-safe and blocks until the verdict."""

    name = "abstract"

    def __init__(self, options: CheckOptions) -> None:
        self.options = options
        self.cancelled = threading.Event()

    def cancel(self) -> None:
        """Refuse new verifications and stop those in flight now, killing their jobs (an
        interrupted ``eval``): their callers get ``VerificationCancelled``. Any thread."""
        self.cancelled.set()
        self._stop_in_flight()

    def _stop_in_flight(self) -> None:  # noqa: B027 - a hook with a default
        """Make every verification in flight end soon (its verdict is discarded)."""

    @abstractmethod
    def verify(self, task: TaskSpec, source: str, hidden_seed: int | None = None,
               profile: bool = False) -> Verdict:
        """The verdict of ``source`` on ``task`` (``error`` for harness failures);
        ``profile`` adds a profiler summary to a correct verdict (agent feedback)."""

    def verify_retrying(self, task: TaskSpec, source: str, hidden_seed: int | None = None,
                        profile: bool = False, *, retries: int = ERROR_RETRIES,
                        backoff_s: float = RETRY_BACKOFF_S) -> Verdict:
        """``verify``, tried again (up to ``retries`` times, waiting ``backoff_s`` and then
        twice as long each time) while the verdict is ``error``: that is the machine's
        fault, and the candidate deserves a verdict of its own. An ``OSError`` from
        ``verify`` (the machine: a lost connection, a full disk) counts as an ``error``
        verdict; other exceptions are the harness's bugs and propagate. After a retry the
        verdict's last reason is ``harness:retried=N after <the errors' codes>``.

        Raises:
            VerificationCancelled: ``cancel`` was called before or during the verification
                (what a killed job made of it is no verdict).
        """
        errors: list[str] = []
        while True:
            if self.cancelled.is_set():
                raise VerificationCancelled(f"{task.id}: verification cancelled")
            verdict = self._verify_guarded(task, source, hidden_seed, profile)
            if self.cancelled.is_set():
                raise VerificationCancelled(f"{task.id}: verification cancelled")
            if verdict.status != Status.ERROR or len(errors) >= retries:
                break
            errors.append(_reason_code(verdict))
            self.cancelled.wait(backoff_s * 2 ** (len(errors) - 1))
        if not errors:
            return verdict
        note = f"harness:retried={len(errors)} after {', '.join(errors)}"
        return verdict.model_copy(update={"reasons": [*verdict.reasons, note]})

    def _verify_guarded(self, task: TaskSpec, source: str, hidden_seed: int | None,
                        profile: bool) -> Verdict:
        try:
            return as_verdict(self.verify(task, source, hidden_seed, profile))
        except OSError as error:
            return self.error_verdict(task, f"harness:executor_failed:{error!r}"[:2000],
                                      hidden_seed)

    def error_verdict(self, task: TaskSpec, reason: str,
                      hidden_seed: int | None = None) -> Verdict:
        """An ``error`` verdict under this executor's backend and ``task``'s policy."""
        return Verdict.infrastructure_error(task, self.options.backend, self.options.policy,
                                            reason, hidden_seed)

    def close(self) -> None:  # noqa: B027 - a hook with a default, not an abstract method
        """Release what the executor holds (Ray connection, ...)."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def options_for(self, hidden_seed: int | None, profile: bool = False) -> CheckOptions:
        return replace(self.options, hidden_seed=hidden_seed, profile_feedback=profile)


def as_verdict(value: Verdict | Mapping[str, Any]) -> Verdict:
    """A stage's result as a ``Verdict`` (a job may hand back the verdict's JSON form)."""
    return value if isinstance(value, Verdict) else migrate_verdict(dict(value))


def _reason_code(verdict: Verdict) -> str:
    """``harness:worker_lost`` of ``harness:worker_lost:detail``: what failed, without
    detail (the note goes to the agent with the retried verdict)."""
    first = verdict.reasons[0] if verdict.reasons else "harness:unknown"
    return ":".join(first.split(":")[:2])[:80]


#: Executors by name (``--executor``): ``local`` and ``ray`` built in.
EXECUTORS: Registry[type[Executor]] = Registry(
    "executor",
    {"ray": Builtin("kerneltrials.scheduler._ray_executor", "ray", "ray")},
    entry_point_group="kerneltrials.executors",
)


@EXECUTORS.register("local")
class LocalExecutor(Executor):
    """Runs both stages in the calling thread; an in-process gate keeps timings alone."""

    name = "local"

    def __init__(self, options: CheckOptions) -> None:
        super().__init__(options)
        self.gate = LocalGate()

    def _stop_in_flight(self) -> None:
        from kerneltrials.sandbox import stop_live_jobs

        stop_live_jobs()  # this process's jobs are every verification's here

    def verify(self, task: TaskSpec, source: str, hidden_seed: int | None = None,
               profile: bool = False) -> Verdict:
        options = self.options_for(hidden_seed, profile)
        return verify_in_stages(lambda: build_job(task, source, options, self.gate),
                                lambda built: run_job(built, self.gate))


def resolve_executor(name: str, options: CheckOptions, **kwargs: Any) -> Executor:
    """An executor by name (``local``, ``ray``, or one from an entry point), constructed
    with ``options`` and ``kwargs`` (e.g. ``address=`` for Ray).

    Raises:
        kerneltrials._registry.UnknownName: no such executor (a ValueError; the message
            lists the valid names).
        kerneltrials._registry.MissingDependency: ``ray`` without Ray installed.
    """
    return EXECUTORS.get(name)(options, **kwargs)
