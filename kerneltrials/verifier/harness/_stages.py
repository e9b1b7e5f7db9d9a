"""The verifier's stages after the static checks: build, correctness (timing is in
``_timing_loop``). Each raises :class:`Outcome` to end the verification early."""

from __future__ import annotations

import os
import time
from typing import Any

from kerneltrials.sandbox import ExitInfo, SandboxStartError
from kerneltrials.sandbox._env import trim
from kerneltrials.tasks import ShapeConfig, TaskError
from kerneltrials.verifier._build import BuildRequest, CompileError, describe_build
from kerneltrials.verifier._build_index import lookup_artifacts, record_artifacts
from kerneltrials.verifier._build_jobs import (
    CompileJobFailed,
    build_artifacts,
    check_flags,
    hand_off,
)
from kerneltrials.verifier._jobs import ForgedReply, JobDied, WorkerFailed, WorkerJob
from kerneltrials.verifier._judge import judge_outputs, judge_run_reply, reject
from kerneltrials.verifier._sanitize import sanitize_candidate_text
from kerneltrials.verifier._session import Outcome, Session
from kerneltrials.verifier.verdict import ConfigResult, Status

INIT_SEED = 42
#: A compile job's wall-clock timeout is the machine's fault when it got less CPU than
#: this share of the wall time it ran, while the run queue held at least this per core.
OVERLOAD_CPU_SHARE = 0.5
OVERLOAD_LOAD_PER_CORE = 1.0
#: Input seeds per configuration; the reference draws inputs with seed + 1 (see tasks).
INPUT_SEEDS = (1234, 98765, 55555, 31337)

_FAILURE_STATUS = {
    "compile_error": Status.COMPILE_ERROR,
    "import_error": Status.RUNTIME_ERROR,
    "candidate_exception": Status.RUNTIME_ERROR,
    "no_kernel": Status.REJECTED,
    "no_model_new": Status.REJECTED,
}
_FAILURE_REASON = {
    "compile_error": "build:compile_error",
    "import_error": "runtime:import_error",
    "candidate_exception": "runtime:exception",
    "no_kernel": "static:no_custom_kernel",
    "no_model_new": "static:no_model_new",
}


def candidate_failure(error: Exception, stage: str) -> Outcome:
    """Map a failure of a candidate-side worker to the candidate's verdict."""
    if isinstance(error, ForgedReply):
        return Outcome(Status.REJECTED,
                       f"integrity:forged_channel_frame:{sanitize_candidate_text(str(error), 300)}")
    if isinstance(error, JobDied):
        info = error.exit_info
        output = sanitize_candidate_text(info.stderr.strip(), 1500)  # the candidate's text
        detail = f"{stage}:{info.describe()} during {error.during}" + (f"\n{output}" if output else "")
        status = Status.TIMEOUT if info.timed_out else Status.RUNTIME_ERROR
        return Outcome(status, f"{'timeout' if info.timed_out else 'runtime'}:{detail}")
    if isinstance(error, WorkerFailed):
        status = _FAILURE_STATUS.get(error.kind, Status.RUNTIME_ERROR)
        reason = _FAILURE_REASON.get(error.kind, f"runtime:{error.kind}")
        detail = sanitize_candidate_text(error.detail.strip() or str(error), 3000)
        return Outcome(status, f"{reason}:{error}" + (f"\n{detail}" if detail else ""))
    raise error


def reference_failure(error: Exception, task_path: str) -> Exception:
    """A failing reference is the task's problem (exit 2) or the harness's (``error``)."""
    if isinstance(error, WorkerFailed) and error.kind == "task_error":
        return TaskError(task_path, f"{error}\n{trim(error.detail, 2000)}".strip())
    if isinstance(error, JobDied):
        return Outcome(Status.ERROR, f"harness:reference worker {error.exit_info.describe()} "
                                     f"during {error.during}")
    return Outcome(Status.ERROR, f"harness:reference worker failed: {error}")


def is_overloaded(exit_info: ExitInfo, wall_s: float, load_per_core: float) -> bool:
    """A wall-clock timeout on a loaded machine while the job got little CPU."""
    cpu_s = exit_info.cpu_time_s  # None where the sandbox cannot account it
    return (exit_info.timed_out and cpu_s is not None and wall_s > 0
            and cpu_s < OVERLOAD_CPU_SHARE * wall_s and load_per_core >= OVERLOAD_LOAD_PER_CORE)


def compile_failure(error: Exception, wall_s: float, cpu_limit_s: int | None,
                    load_per_core: float | None = None) -> Outcome:
    """The verdict for a compile job that ended without its outputs: a compiler past the
    CPU-time limit is the candidate's ``timeout``; a wall clock that ran out on a loaded
    machine while the job got little CPU is the machine's (``error``, retried by eval)."""
    limit = f"cpu time limit of {cpu_limit_s} s exceeded"
    if isinstance(error, WorkerFailed) and error.kind == "cpu_time_limit":
        return Outcome(Status.TIMEOUT, f"timeout:build:{limit} ({error})")
    if isinstance(error, JobDied):
        info = error.exit_info
        if info.cpu_limit_hit:
            return Outcome(Status.TIMEOUT, f"timeout:build:{limit}")
        if load_per_core is None:
            load_per_core = os.getloadavg()[0] / max(1, os.cpu_count() or 1)
        if is_overloaded(info, wall_s, load_per_core):
            return Outcome(Status.ERROR, f"harness:build_overloaded:the compile job's wall clock "
                                         f"ran out after {wall_s:.0f} s with "
                                         f"{info.cpu_time_s or 0:.0f} s of CPU "
                                         f"(load {load_per_core:.1f} per core)")
    return candidate_failure(error, "build")


def build_stage(session: Session) -> None:
    """Collect the candidate's ``load_inline`` requests, check them, and build (or find)
    each in the cache; the run job gets verified copies (``_build_jobs``)."""
    started = time.perf_counter()
    known = lookup_artifacts(session.source, session.options.backend)
    if known is not None:  # this exact source was built before: its libraries are intact
        check_flags([BuildRequest.from_dict(item["request"]) for item in known])
        handed = hand_off(session, known)
        if handed is not None:
            _record_build(session, handed, started)
            return
    try:
        items = build_artifacts(session)
    except (WorkerFailed, JobDied, ForgedReply) as error:  # the collect job: candidate code
        raise candidate_failure(error, "build") from error
    except CompileJobFailed as failed:
        raise compile_failure(failed.error, failed.wall_s, session.options.build_cpu_time_s) from failed
    except CompileError as error:
        raise Outcome(Status.COMPILE_ERROR, f"build:compile_error:{error}") from error
    handed = hand_off(session, items)
    if handed is None:
        raise Outcome(Status.ERROR, "harness:build_cache:a library changed between its "
                                    "publication and its hand-off")
    record_artifacts(session.source, session.options.backend, items)
    _record_build(session, handed, started)


def _record_build(session: Session, artifacts: list[dict[str, Any]], started: float) -> None:
    session.artifacts = artifacts
    session.durations_s["build"] = time.perf_counter() - started
    session.build_info = {
        "cache_hit": all(item["artifact"]["cache_hit"] for item in session.artifacts),
        "build_s": sum(item["artifact"]["build_s"] for item in session.artifacts),
        "keys": [item["artifact"]["key"] for item in session.artifacts],
        "paths": [describe_build(item["artifact"]) for item in session.artifacts],
    }


def launch_workers(session: Session) -> tuple[WorkerJob, WorkerJob]:
    """Start the reference worker (it never sees the candidate) and the candidate worker.

    Started before the build, their Python and torch imports overlap the compiler; the
    build's duration is then given back to their wall clocks (:func:`load_workers`).
    """
    try:
        reference = session.start_worker("reference", session.options.run_timeout_s * 2)
        candidate = session.start_worker("candidate", session.options.run_timeout_s)
    except SandboxStartError as error:
        raise Outcome(Status.ERROR, f"harness:sandbox:{error}") from error
    return reference, candidate


def load_workers(session: Session, reference: WorkerJob, candidate: WorkerJob,
                 idle_s: float = 0.0) -> None:
    """Load the task into both workers and the candidate into its own; ``idle_s`` is how
    long they waited on the harness since they started (not counted against them)."""
    for worker in (reference, candidate):
        worker.process.extend_deadline(idle_s)
    task = session.task
    load = {"source": task.source, "path": task.path, "task_id": task.id, "name": task.name,
            "backend": session.options.backend}
    try:
        reference.request("load_task", session.options.call_timeout_s, **load)
    except (WorkerFailed, JobDied) as error:
        raise reference_failure(error, task.path) from error
    try:
        candidate.request("load_task", session.options.call_timeout_s, **load)
        loaded = candidate.request("load_candidate", session.options.call_timeout_s,
                                   candidate=str(session.candidate_path),
                                   backend=session.options.backend, artifacts=session.artifacts)
    except (WorkerFailed, JobDied, ForgedReply) as error:
        raise candidate_failure(error, "load") from error
    if loaded.get("integrity"):  # importing the candidate changed watched state
        raise reject(*loaded["integrity"])


def _setup_config(session: Session, reference: WorkerJob, candidate: WorkerJob,
                  config: ShapeConfig) -> None:
    fields = {"config": config.name, "overrides": config.overrides, "init_seed": INIT_SEED}
    try:
        reference.request("setup", session.options.call_timeout_s, **fields)
        reference.request("pool_reference", session.options.call_timeout_s, config=config.name,
                          path=session.pool_path(config.name))
    except (WorkerFailed, JobDied) as error:
        raise reference_failure(error, session.task.path) from error
    try:
        candidate.request("setup", session.options.call_timeout_s, **fields)
    except (WorkerFailed, JobDied, ForgedReply) as error:
        raise candidate_failure(error, f"setup[{config.name}]") from error


def _check_one_seed(session: Session, reference: WorkerJob, candidate: WorkerJob,
                    config: ShapeConfig, seed: int, result: ConfigResult, replay: bool) -> None:
    tag = f"{config.name}-{seed}"
    paths = {"inputs": session.path("exchange", f"inputs-{tag}.pt"),
             "reference": session.path("private", f"reference-{tag}.pt"),
             "outputs": session.path("candidate-out", f"outputs-{tag}.pt")}
    timeout = session.options.call_timeout_s
    try:
        reference.request("inputs", timeout, config=config.name, seed=seed, path=paths["inputs"])
    except (WorkerFailed, JobDied) as error:
        raise reference_failure(error, session.task.path) from error
    try:  # the candidate runs first, before any reference output exists
        reply = candidate.request("run", timeout, config=config.name,
                                  inputs_path=paths["inputs"], path=paths["outputs"],
                                  replay=replay, seed=seed)
    except (WorkerFailed, JobDied, ForgedReply) as error:
        raise candidate_failure(error, f"run[{config.name}]") from error
    try:
        ref_reply = reference.request("reference", timeout, config=config.name,
                                      inputs_path=paths["inputs"], path=paths["reference"])
    except (WorkerFailed, JobDied) as error:
        raise reference_failure(error, session.task.path) from error
    ops = sorted(set(ref_reply.get("ops", [])))
    session.reference_ops[config.name] = ops
    judge_run_reply(session, config, reply, ops)
    judge_outputs(session, config, reply, paths, result)


def correctness_stage(session: Session, reference: WorkerJob, candidate: WorkerJob) -> bool:
    """Every configuration (hidden ones included) with several input seeds."""
    started = time.perf_counter()
    seeds = INPUT_SEEDS[: max(1, min(session.options.seeds, len(INPUT_SEEDS)))]
    all_passed = True
    for config in session.configs:
        result = ConfigResult(name=config.name, kind=config.kind,
                              params=session.task.resolved_params(config.overrides), passed=True)
        session.results[config.name] = result
        _setup_config(session, reference, candidate, config)
        for index, seed in enumerate(seeds):  # poisoned replays on the first seed only
            _check_one_seed(session, reference, candidate, config, seed, result, index == 0)
        if session.task.backward and result.passed:
            from kerneltrials.verifier._backward import check_backward

            check_backward(session, reference, candidate, config, seeds[0], result)
        all_passed &= result.passed
    session.durations_s["correctness"] = time.perf_counter() - started
    return all_passed
