"""The verifier's two stages and their composition: ``build`` (static checks, then the
collect and compile jobs), ``run`` (correctness, timing, profile), and ``check``, which
is ``run(build(...))`` with the run stage's workers started while the build compiles.
The data flow and the trust boundary: docs/design/architecture.md.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from kerneltrials._version import __version__
from kerneltrials.backends import resolve_backend
from kerneltrials.tasks import TaskSpec, load_task, shape_configs, warm_cost_counter
from kerneltrials.verifier._built import Built, Hooks
from kerneltrials.verifier._finish import finish, run_stages
from kerneltrials.verifier._options import INPUT_MODES, CheckOptions, TimingOptions
from kerneltrials.verifier.harness._disk import judge_disk, require_free_disk
from kerneltrials.verifier.harness._hardware import gpu_available, hardware_fingerprint
from kerneltrials.verifier.harness._jobs import WorkerJob
from kerneltrials.verifier.harness._session import Outcome, Session
from kerneltrials.verifier.harness._stages import (
    build_stage,
    launch_workers,
    raise_known_compile_failure,
)
from kerneltrials.verifier.static import STATIC_PASSED, run_static_checks
from kerneltrials.verifier.verdict import Status, Verdict

Workers = tuple[WorkerJob, WorkerJob, float]  # reference, candidate, when they started


def check(
    task: str | Path | TaskSpec,
    source: str,
    *,
    backend: str | None = None,
    profile: str | None = None,
    policy: str | None = None,
    sandbox: str | None = None,
    hidden_seed: int | None = None,
    compile_baseline: bool | None = None,
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
        options: a full :class:`CheckOptions`; each keyword above that is given (not
            ``None``) overrides its field.
        progress: called with the name of each stage as it starts (for progress displays).

    Returns:
        The :class:`Verdict`; candidate failures are verdicts, never exceptions.

    Raises:
        TaskError: the task file is unusable (missing, malformed, or its reference crashes).
        ValueError: an unknown backend or policy.
    """
    overrides = {"backend": backend, "profile": profile, "policy": policy, "sandbox": sandbox,
                 "hidden_seed": hidden_seed, "compile_baseline": compile_baseline,
                 "timing": timing}
    given = {name: value for name, value in overrides.items() if value is not None}
    resolved = replace(options or CheckOptions(), **given)  # type: ignore[arg-type]
    spec, resolved = _resolve(task, resolved)
    hooks = Hooks(progress=progress) if progress is not None else Hooks()
    built, session, workers = _build(spec, source, resolved, hooks, static_only=static_only,
                                     launch=True)
    if built.verdict is not None:
        return built.verdict
    assert session is not None  # the build stage returns a session with every Built to run
    return _run(built, session, workers, hooks)


def build(task: str | Path | TaskSpec, source: str,
          options: CheckOptions | None = None, hooks: Hooks | None = None) -> Built:
    """The build stage: static checks, then the collect and compile jobs.

    Returns a :class:`Built`: with its ``verdict`` set when the candidate failed here
    (``rejected``, ``compile_error``, ...), else with the built libraries for :func:`run`.

    Raises:
        TaskError: the task file is unusable. ValueError: an unknown backend or policy.
    """
    spec, resolved = _resolve(task, options or CheckOptions())
    built, session, _ = _build(spec, source, resolved, hooks or Hooks(), static_only=False,
                               launch=False)
    if session is not None:
        session.close()
    return built


def run(built: Built, options: CheckOptions | None = None, hooks: Hooks | None = None) -> Verdict:
    """The run stage: install the built libraries, check correctness, time, profile.

    ``options`` may change how the run goes (timing, profile feedback, sandbox); the
    backend, policy and hidden seed stay those fixed at the build. A ``built`` that
    carries its verdict is returned as it is.

    Raises:
        TaskError: the task's reference crashes.
    """
    if built.verdict is not None:
        return built.verdict
    if options is not None:
        fixed = built.options
        # The seed stays the build's, and so does whether it is a run's (shared baselines).
        built = replace(built, options=replace(
            options, backend=fixed.backend, policy=fixed.policy, hidden_seed=fixed.hidden_seed,
            reuse_baselines=options.reuse_baselines and fixed.reuse_baselines))
    hooks = hooks or Hooks()
    session = _session(built.task, built.source, built.options)
    return _run(built, session, _launch(session) if _runs_here(built.options) else None, hooks)


def _resolve(task: str | Path | TaskSpec, options: CheckOptions) -> tuple[TaskSpec, CheckOptions]:
    """The task loaded; the options with the policy and the hidden seed fixed."""
    spec = task if isinstance(task, TaskSpec) else load_task(task)
    resolve_backend(options.backend)  # an unknown name raises, listing the valid ones
    if options.policy not in (None, "strict", "mixed"):
        raise ValueError(f"unknown policy {options.policy!r}: choose strict or mixed")
    if options.inputs not in INPUT_MODES:
        raise ValueError(f"unknown inputs {options.inputs!r}: choose {' or '.join(INPUT_MODES)}")
    seed = options.hidden_seed if options.hidden_seed is not None else secrets.randbits(31)
    # A seed drawn here is this check's alone: no other check of its run can reuse its
    # baselines, so none are stored (nor timed on past the adaptive stop to be stored).
    shared = options.reuse_baselines and options.hidden_seed is not None
    return spec, replace(options, policy=options.policy or spec.default_policy(), hidden_seed=seed,
                         reuse_baselines=shared)


def _base_verdict(task: TaskSpec, options: CheckOptions) -> Verdict:
    return Verdict(task=task.id, backend=options.backend, status=Status.ERROR,
                   policy=options.policy,  # type: ignore[arg-type]
                   harness_version=__version__, hidden_seed=options.hidden_seed,
                   hardware=hardware_fingerprint(options.backend))


def _profile_notes(task: TaskSpec, options: CheckOptions) -> list[str]:
    """What the verdict says of sizes it did not take from the task file (a file without
    ``TASK`` on the ``cpu`` profile: ``tasks/_cpu_profile``, chosen once and kept)."""
    if task.has_task_dict or options.resolved_profile() != "cpu":
        return []
    from kerneltrials.tasks import derive_cpu_profile

    chosen = derive_cpu_profile(task)
    return [chosen.note()] if chosen.derived else []


def _runs_here(options: CheckOptions) -> bool:
    return not resolve_backend(options.backend).needs_gpu or gpu_available()


def _session(task: TaskSpec, source: str, options: CheckOptions) -> Session:
    assert options.hidden_seed is not None
    return Session(task=task, source=source, options=options, configs=[],
                   hidden_seed=options.hidden_seed)


def _launch(session: Session) -> Workers:
    """The run stage's workers (their imports take a few seconds of both cores)."""
    reference, candidate = launch_workers(session)
    return reference, candidate, time.perf_counter()


def _build(task: TaskSpec, source: str, options: CheckOptions, hooks: Hooks, *,
           static_only: bool, launch: bool) -> tuple[Built, Session | None, Workers | None]:
    started = time.perf_counter()
    static = run_static_checks(source, options.backend, str(options.policy),
                               source_scans=options.source_scans)
    reasons = tuple(static.reasons + static.notes)
    built = Built(task=task, source=source, options=options, static_reasons=reasons,
                  durations_s={"static": time.perf_counter() - started})
    if not static.passed or static_only:
        # Static-only screening runs nothing, so a clean candidate is ``not_run``.
        verdict = _base_verdict(task, options)
        verdict.status = static.status if static.status is not None else Status.NOT_RUN
        verdict.reasons = list(reasons) + ([STATIC_PASSED] if static_only and static.passed else [])
        verdict.durations_s["total"] = time.perf_counter() - started
        return replace(built, verdict=finish(verdict)), None, None
    session = _session(task, source, options)
    if launch and _runs_here(options):
        # The first check of a process: the workers' zygote and the parent's own one-time
        # import (the speed-of-light counter's) load while it builds or finds the build.
        session.prestart()
        warm_cost_counter()
    hooks.progress("build")
    workers = None
    try:
        require_free_disk(session.root)
        raise_known_compile_failure(source, options.backend)  # before any worker starts
        items = build_stage(session)  # before any run worker: a compile error answers alone
        workers = _launch(session) if launch and _runs_here(options) else None
    except Outcome as outcome:
        verdict = _base_verdict(task, options)
        verdict.status, verdict.reasons = outcome.status, list(reasons) + outcome.reasons
        verdict = _from_session(verdict, session, built, started)
        session.close()
        return replace(built, verdict=verdict), None, None
    durations = {**built.durations_s, **session.durations_s,
                 "total": time.perf_counter() - started}
    return replace(built, artifacts=tuple(items), build_info=session.build_info,
                   isolation=session.isolation, durations_s=durations), session, workers


def _from_session(verdict: Verdict, session: Session, built: Built, started: float) -> Verdict:
    verdict.reasons += [r for r in session.reasons if r not in verdict.reasons]
    verdict.isolation = session.isolation
    verdict.build = session.build_info
    verdict.durations_s.update({**built.durations_s, **session.durations_s})
    verdict.durations_s["total"] = time.perf_counter() - started
    return finish(verdict, built)


def _run(built: Built, session: Session, workers: Workers | None, hooks: Hooks) -> Verdict:
    """The run stage in ``session`` (its workers already started, or None: no device)."""
    started = time.perf_counter()
    options = built.options
    session.configs = shape_configs(built.task, options.resolved_profile(), session.hidden_seed)
    verdict = _base_verdict(built.task, options)
    verdict.reasons = list(built.static_reasons) + _profile_notes(built.task, options)
    verdict.compiled = True
    try:
        outcome: Outcome | None = None
        try:
            if workers is None:
                raise Outcome(Status.NOT_RUN,
                              "device:no_gpu:built, but this machine has no CUDA device")
            run_stages(session, verdict, built, workers, hooks)
        except Outcome as raised:
            outcome = raised
        outcome = judge_disk(session, outcome)  # while the candidate's job still runs
    finally:
        session.close()
    if outcome is not None:
        verdict.status = outcome.status
        verdict.reasons += outcome.reasons
    verdict.reasons += [r for r in session.reasons if r not in verdict.reasons]
    verdict.configs = list(session.results.values())
    verdict.isolation = session.isolation or built.isolation
    verdict.build = built.build_info
    verdict.durations_s.update({**built.durations_s, **session.durations_s})
    verdict.durations_s["total"] = built.durations_s.get("total", 0.0) + (
        time.perf_counter() - started)
    return finish(verdict, built)
