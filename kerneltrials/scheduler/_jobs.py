"""The two stages of verifying one candidate, as plain functions any executor can run.

``build_job`` needs no device: the static checks and the build, under a shared lease on
the node; it returns a :class:`~kerneltrials.verifier.Built` that can travel to another
node. ``run_job`` runs that build and decides the verdict; on the CPU backend its timing
phase holds the node's exclusive lease (``_gate``), through the run stage's
``exclusive_timing`` hook. Candidate failures are verdicts; harness failures are
``error`` verdicts (docs/design/eval.md, docs/design/architecture.md).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from typing import Protocol

from kerneltrials.tasks import TaskError, TaskSpec
from kerneltrials.verifier import Built, CheckOptions, Hooks, Verdict


class Gate(Protocol):
    def acquire(self, exclusive: bool, pid: int) -> str: ...

    def release(self, lease: str) -> None: ...


def error_verdict(task: TaskSpec, options: CheckOptions, reason: str) -> Verdict:
    """A verdict for a failure that is not the candidate's (never scored against it)."""
    return Verdict.infrastructure_error(task, options.backend, options.policy, reason,
                                        options.hidden_seed)


def build_job(task: TaskSpec, source: str, options: CheckOptions, gate: Gate) -> Built:
    """Static checks and build, under a shared lease; a task that cannot be loaded gives
    a ``Built`` carrying an ``error`` verdict."""
    from kerneltrials.verifier import build  # heavy (torch): the CLI imports this module

    lease = gate.acquire(False, os.getpid())
    try:
        return build(task, source, options)
    except TaskError as error:
        return Built(task=task, source=source, options=options,
                     verdict=error_verdict(task, options, f"task:{error.cause}"))
    finally:
        gate.release(lease)


class _Leases:
    """A shared lease for the run; on the cpu backend the timing phase trades it for the
    exclusive one, and takes a shared one again after."""

    def __init__(self, gate: Gate, exclusive_timing: bool) -> None:
        self.gate = gate
        self.exclusive = exclusive_timing
        self.lease: str | None = None

    def share(self) -> None:
        self.lease = self.gate.acquire(False, os.getpid())

    @contextlib.contextmanager
    def timing(self) -> Iterator[None]:
        if not self.exclusive:
            yield
            return
        self.release()
        self.lease = self.gate.acquire(True, os.getpid())
        try:
            yield
        finally:
            self.release()
            self.share()

    def release(self) -> None:
        if self.lease is not None:
            self.gate.release(self.lease)
            self.lease = None


def run_job(built: Built, gate: Gate, progress: Callable[[str], None] | None = None) -> Verdict:
    """Correctness and timing of a built candidate (a ``built`` with a verdict is returned
    as it is)."""
    from kerneltrials.verifier import run  # heavy (torch): the CLI imports this module

    if built.verdict is not None:
        return built.verdict
    leases = _Leases(gate, exclusive_timing=built.options.backend == "cpu")
    hooks = Hooks(progress=progress or Hooks().progress, exclusive_timing=leases.timing)
    leases.share()
    try:
        return run(built, hooks=hooks)
    except TaskError as error:
        return error_verdict(built.task, built.options, f"task:{error.cause}")
    finally:
        leases.release()


def verify_in_stages(build_stage: Callable[[], Built],
                     run_stage: Callable[[Built], Verdict]) -> Verdict:
    """Build, then run what was built (a build that decided the verdict is final)."""
    built = build_stage()
    return built.verdict if built.verdict is not None else run_stage(built)
