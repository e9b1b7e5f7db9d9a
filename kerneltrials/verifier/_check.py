"""``check``: one candidate on one task, through every stage, to one verdict."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from kerneltrials import __version__
from kerneltrials.tasks import TaskSpec, load_task, shape_configs
from kerneltrials.verifier._hardware import gpu_available, hardware_fingerprint
from kerneltrials.verifier._options import CheckOptions, TimingOptions
from kerneltrials.verifier._screen import STATIC_PASSED
from kerneltrials.verifier._session import Outcome, Session
from kerneltrials.verifier._speed import custom_share, flag_suspicious
from kerneltrials.verifier._stages import (
    build_stage,
    correctness_stage,
    launch_workers,
    load_workers,
)
from kerneltrials.verifier._static import run_static_checks
from kerneltrials.verifier._stats import geometric_mean
from kerneltrials.verifier._timing_loop import Side, time_config
from kerneltrials.verifier.verdict import Status, Verdict


def check(
    task: str | Path | TaskSpec,
    source: str,
    *,
    backend: str = "cpu",
    profile: str | None = None,
    policy: str | None = None,
    sandbox: str = "process",
    hidden_seed: int | None = None,
    compile_baseline: bool = True,
    static_only: bool = False,
    timing: TimingOptions | None = None,
    options: CheckOptions | None = None,
    progress: Callable[[str], None] | None = None,
) -> Verdict:
    """Verify ``source`` (a candidate module's text) on ``task`` and return its verdict.

    Args:
        task: a built-in id (``L1/relu``), a task file path, or a loaded :class:`TaskSpec`.
        source: the candidate file's text (defines ``ModelNew``, builds with ``load_inline``).
        backend: ``cpu`` or ``cuda``; profile: shape profile (default follows the backend).
        policy: ``strict`` or ``mixed`` (default: strict for level 1, else mixed).
        hidden_seed: seed of the hidden configurations; ``None`` draws a fresh one.
        compile_baseline: also time ``torch.compile`` for ``speedup_compile``.
        static_only: stop after the static checks.
        options: a full :class:`CheckOptions`; the keywords above override its fields.
        progress: called with the name of each stage as it starts (for progress displays).

    Returns:
        The :class:`Verdict`; candidate failures are verdicts, never exceptions.

    Raises:
        TaskError: the task file is unusable (missing, malformed, or its reference crashes).
    """
    spec = task if isinstance(task, TaskSpec) else load_task(task)
    base = options or CheckOptions()
    resolved = replace(
        base, backend=backend, profile=profile or base.profile, policy=policy or base.policy,
        sandbox=sandbox, compile_baseline=compile_baseline and base.compile_baseline,
        hidden_seed=hidden_seed if hidden_seed is not None else base.hidden_seed,
        timing=timing or base.timing,
    )
    if resolved.backend not in ("cpu", "cuda"):
        raise ValueError(f"unknown backend {resolved.backend!r}: choose cpu or cuda")
    if resolved.policy not in (None, "strict", "mixed"):
        raise ValueError(f"unknown policy {resolved.policy!r}: choose strict or mixed")
    return _verify(spec, source, resolved, static_only, progress or (lambda _stage: None))


def _base_verdict(task: TaskSpec, options: CheckOptions, seed: int) -> Verdict:
    return Verdict(task=task.id, backend=options.backend, status=Status.ERROR,
                   policy=options.policy or task.default_policy(),  # type: ignore[arg-type]
                   harness_version=__version__, hidden_seed=seed,
                   hardware=hardware_fingerprint(options.backend))


def _verify(task: TaskSpec, source: str, options: CheckOptions, static_only: bool,
            progress: Callable[[str], None]) -> Verdict:
    started = time.perf_counter()
    seed = options.hidden_seed if options.hidden_seed is not None else secrets.randbits(31)
    verdict = _base_verdict(task, options, seed)
    options = replace(options, policy=verdict.policy)  # every later stage sees the policy
    static = run_static_checks(source, options.backend, verdict.policy,
                               source_scans=options.source_scans)
    verdict.reasons += static.reasons + static.notes
    if not static.passed or static_only:
        # Static-only screening runs nothing, so a clean candidate is ``not_run``.
        verdict.status = static.status if static.status is not None else Status.NOT_RUN
        if static_only and static.passed:
            verdict.reasons.append(STATIC_PASSED)
        verdict.durations_s["total"] = time.perf_counter() - started
        return _finalise(verdict)
    configs = shape_configs(task, options.resolved_profile(), seed)
    session = Session(task=task, source=source, options=options, configs=configs, hidden_seed=seed)
    try:
        _run_stages(session, verdict, progress)
    except Outcome as outcome:
        verdict.status = outcome.status
        verdict.reasons += outcome.reasons
    finally:
        session.close()
    verdict.reasons += [r for r in session.reasons if r not in verdict.reasons]
    verdict.configs = list(session.results.values())
    verdict.isolation = session.isolation
    verdict.build = session.build_info
    verdict.durations_s.update(session.durations_s)
    if options.llm_verifier:
        _llm_review(verdict, task, source, options.llm_verifier)
    verdict.durations_s["total"] = time.perf_counter() - started
    return _finalise(verdict)


def _llm_review(verdict: Verdict, task: TaskSpec, source: str, spec: str) -> None:
    """Advisory: adds a reason (and ``suspicious``), never changes the status."""
    from kerneltrials.agents import resolve_provider
    from kerneltrials.verifier._llm_verifier import review_candidate

    try:
        provider = resolve_provider(spec)
    except Exception as error:
        verdict.reasons.append(f"llm:unavailable:{type(error).__name__}: {error}")
        return
    review_candidate(verdict, source, provider, task.source)


def _run_stages(session: Session, verdict: Verdict, progress: Callable[[str], None]) -> None:
    options = session.options
    runs_here = not options.build_only and (options.backend != "cuda" or gpu_available())
    progress("build")
    # The run stage's workers start now: their imports overlap the compiler.
    reference, candidate = launch_workers(session) if runs_here else (None, None)
    build_started = time.perf_counter()
    build_stage(session)
    verdict.compiled = True
    if options.build_only:
        raise Outcome(Status.NOT_RUN, "build:only:built; the run stage decides the verdict")
    if reference is None or candidate is None:
        raise Outcome(Status.NOT_RUN, "device:no_gpu:built, but this machine has no CUDA device")
    progress("correctness")
    load_workers(session, reference, candidate, idle_s=time.perf_counter() - build_started)
    if not correctness_stage(session, reference, candidate):
        raise Outcome(Status.INCORRECT)
    progress("timing")
    _timing_stage(session, verdict, reference, candidate)
    verdict.status = Status.CORRECT
    if session.options.profile_feedback:
        progress("profile")
        from kerneltrials.verifier._profile_stage import profile_stage

        verdict.profile = profile_stage(session, candidate)


def _timing_stage(session: Session, verdict: Verdict, reference: Any, candidate: Any) -> None:
    started = time.perf_counter()
    sides = [Side("candidate", candidate, "candidate"), Side("eager", reference, "eager")]
    if session.options.compile_baseline:
        sides.append(Side("compile", reference, "compile"))
    eager_ratios, compile_ratios = [], []
    for config in session.configs:
        time_config(session, sides, config)
        stats = {side.name: side.stats() for side in sides}
        session.results[config.name].times_ms = stats
        eager_ratios.append(stats["eager"].median / stats["candidate"].median)
        if "compile" in stats:
            compile_ratios.append(stats["compile"].median / stats["candidate"].median)
    verdict.speedup = geometric_mean(eager_ratios)
    verdict.speedup_compile = geometric_mean(compile_ratios) if compile_ratios else None
    verdict.custom_share = custom_share(list(session.results.values()))
    flag_suspicious(session, verdict)
    session.durations_s["timing"] = time.perf_counter() - started


def _finalise(verdict: Verdict) -> Verdict:
    verdict.correct = verdict.status == Status.CORRECT
    if not verdict.correct:
        verdict.speedup = verdict.speedup_compile = None
    return verdict
