"""The run stage's steps after the workers are up, and the last touches of every verdict."""

from __future__ import annotations

import time

from kerneltrials.agents import resolve_provider
from kerneltrials.verifier._built import Built, Hooks
from kerneltrials.verifier.harness._jobs import WorkerJob
from kerneltrials.verifier.harness._llm_verifier import review_candidate
from kerneltrials.verifier.harness._output_reads import OutputReads, keeps_outputs
from kerneltrials.verifier.harness._profile_stage import profile_stage
from kerneltrials.verifier.harness._session import Outcome, Session
from kerneltrials.verifier.harness._speed import (
    custom_share,
    faster_than_light,
    flag_suspicious,
)
from kerneltrials.verifier.harness._stages import correctness_stage, install_stage, load_workers
from kerneltrials.verifier.harness._stats import geometric_mean, speedup_interval
from kerneltrials.verifier.harness._timing_loop import Side, time_config
from kerneltrials.verifier.verdict import Status, Verdict


def run_stages(session: Session, verdict: Verdict, built: Built,
               workers: tuple[WorkerJob, WorkerJob, float], hooks: Hooks) -> None:
    """Install the libraries, load the workers, check correctness, time, profile; raises
    :class:`Outcome` to end early."""
    reference, candidate, launched_at = workers
    install_stage(session, list(built.artifacts))
    hooks.progress("correctness")
    # The workers waited on the harness (the build, the install) since they started.
    load_workers(session, reference, candidate, idle_s=time.perf_counter() - launched_at)
    # One reader of the candidate's memory for the whole check: a harness that finds at
    # its first read that it may not read stops asking the worker to keep its outputs.
    reads = OutputReads(candidate) if keeps_outputs(session.options) else None
    passed = correctness_stage(session, reference, candidate, reads)
    if reads is not None:
        reads.release()
    if not passed:
        raise Outcome(Status.INCORRECT)
    hooks.progress("timing")
    with hooks.exclusive_timing():
        _timing_stage(session, verdict, reference, candidate, reads)
    verdict.status = Status.CORRECT
    if session.options.profile_feedback:
        hooks.progress("profile")
        verdict.profile = profile_stage(session, candidate)


def _timing_stage(session: Session, verdict: Verdict, reference: WorkerJob,
                  candidate: WorkerJob, reads: OutputReads | None) -> None:
    started = time.perf_counter()
    eager = Side("eager", reference, "eager")
    sides = [Side("candidate", candidate, "candidate", reads=reads, reference=reference), eager]
    if session.options.compile_baseline:
        sides.append(Side("compile", reference, "compile"))
    eager_ratios, compile_ratios = [], []
    intervals: list[tuple[float, float] | None] = []
    for config in session.configs:
        loop_ms = time_config(session, sides, config)
        session.discard(session.pool_path(config.name))  # timed: nothing reads it again
        stats = {side.name: side.stats(loop_ms) for side in sides}
        session.results[config.name].times_ms = stats
        eager_ratios.append(stats["eager"].median / stats["candidate"].median)
        intervals.append(speedup_interval(eager.scored_ms, sides[0].samples_ms))
        if "compile" in stats:
            compile_ratios.append(stats["compile"].median / stats["candidate"].median)
    verdict.speedup = geometric_mean(eager_ratios)
    verdict.speedup_compile = geometric_mean(compile_ratios) if compile_ratios else None
    known = [interval for interval in intervals if interval is not None]
    if known and len(known) == len(intervals):
        verdict.speedup_interval = [round(geometric_mean([i[bound] for i in known]), 4)
                                    for bound in (0, 1)]
    verdict.custom_share = custom_share(list(session.results.values()))
    session.durations_s["timing"] = time.perf_counter() - started
    impossible = faster_than_light(session)
    if impossible:  # work not done is not fast: no speedup, no flag, a rejection
        raise Outcome(Status.REJECTED, *impossible)
    flag_suspicious(session, verdict)


def finish(verdict: Verdict, built: Built | None = None) -> Verdict:
    """The advisory LLM review (when asked for, on a candidate that got past the static
    checks), then ``correct`` and the speedups made consistent with the status."""
    if built is not None and built.options.llm_verifier:
        _llm_review(verdict, built, built.options.llm_verifier)
    verdict.correct = verdict.status == Status.CORRECT
    if not verdict.correct:
        verdict.speedup = verdict.speedup_compile = verdict.speedup_interval = None
    return verdict


def _llm_review(verdict: Verdict, built: Built, spec: str) -> None:
    """Advisory: adds a reason (and ``suspicious``), never changes the status."""
    try:
        provider = resolve_provider(spec)
    except Exception as error:
        verdict.reasons.append(f"llm:unavailable:{type(error).__name__}: {error}")
        return
    review_candidate(verdict, built.source, provider, built.task.source)
