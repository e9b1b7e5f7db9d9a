"""The two stages of verifying one candidate, as plain functions any executor can run.

``build_job`` needs no device: static checks and the build (a shared lease on the node).
``run_job`` loads the built library and decides the verdict; on the CPU backend its
timing phase takes the node's exclusive lease (``_gate``). Both return verdict dicts:
candidate failures are verdicts, harness failures are ``error`` verdicts.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol

from kerneltrials.tasks import TaskError, TaskSpec
from kerneltrials.verifier import CheckOptions, Status, Verdict


class Gate(Protocol):
    def acquire(self, exclusive: bool, pid: int) -> str: ...

    def release(self, lease: str) -> None: ...


def error_verdict(task: TaskSpec, options: CheckOptions, reason: str) -> dict[str, Any]:
    """A verdict for a failure that is not the candidate's (never scored against it)."""
    return Verdict(task=task.id, backend=options.backend, status=Status.ERROR,
                   policy=options.policy or task.default_policy(),  # type: ignore[arg-type]
                   reasons=[reason], hidden_seed=options.hidden_seed).to_dict()


def build_job(task: TaskSpec, source: str, options: CheckOptions, gate: Gate) -> dict[str, Any]:
    """Static checks and build; a verdict of ``not_run`` + ``compiled`` means "go on"."""
    from kerneltrials.verifier import check

    lease = gate.acquire(False, os.getpid())
    try:
        verdict = check(task, source, backend=options.backend, sandbox=options.sandbox,
                        options=replace(options, build_only=True))
    except TaskError as error:
        return error_verdict(task, options, f"task:{error.cause}")
    finally:
        gate.release(lease)
    return verdict.to_dict()


class _StageLeases:
    """Shared lease for correctness, exclusive for timing (CPU backend only)."""

    def __init__(self, gate: Gate, exclusive_timing: bool) -> None:
        self.gate = gate
        self.exclusive_timing = exclusive_timing
        self.lease: str | None = None

    def on_stage(self, stage: str) -> None:
        if stage == "correctness" and self.lease is None:
            self.lease = self.gate.acquire(False, os.getpid())
        elif stage == "timing" and self.exclusive_timing:
            self.release()
            self.lease = self.gate.acquire(True, os.getpid())

    def release(self) -> None:
        if self.lease is not None:
            self.gate.release(self.lease)
            self.lease = None


def run_job(task: TaskSpec, source: str, options: CheckOptions, gate: Gate,
            progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Correctness and timing of an already-built candidate (the build is a cache hit)."""
    from kerneltrials.verifier import check

    leases = _StageLeases(gate, exclusive_timing=options.backend == "cpu")

    def on_stage(stage: str) -> None:
        leases.on_stage(stage)
        if progress is not None:
            progress(stage)

    try:
        verdict = check(task, source, backend=options.backend, sandbox=options.sandbox,
                        options=replace(options, build_only=False), progress=on_stage)
    except TaskError as error:
        return error_verdict(task, options, f"task:{error.cause}")
    finally:
        leases.release()
    return verdict.to_dict()


def verify_in_stages(build: Callable[[], dict[str, Any]],
                     run: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Build, then run only when the build stage says so."""
    built = build()
    if built.get("status") == Status.NOT_RUN and built.get("compiled") and any(
            reason.startswith("build:only") for reason in built.get("reasons", [])):
        return run()
    return built
