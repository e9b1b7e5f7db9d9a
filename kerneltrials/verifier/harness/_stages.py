"""The verifier's stages after the static checks: build, install, correctness (timing is
in ``_timing_loop``). Each raises :class:`Outcome` to end the verification early."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from kerneltrials._cpuinfo import usable_cores
from kerneltrials.sandbox import SandboxStartError
from kerneltrials.tasks import ShapeConfig
from kerneltrials.verifier import protocol as wire
from kerneltrials.verifier.builds._artifact import BuiltArtifact
from kerneltrials.verifier.builds._compile_log import readable_compile_error
from kerneltrials.verifier.builds._jobs import (
    CompileJobFailed,
    build_artifacts,
    check_flags,
    describe_build,
    hand_off,
)
from kerneltrials.verifier.builds._source_index import (
    lookup_artifacts,
    lookup_compile_failure,
    record_artifacts,
    record_compile_failure,
)
from kerneltrials.verifier.builds._symbols import LinkToolMissing, link_findings, read_link_record
from kerneltrials.verifier.harness._backward import check_backward
from kerneltrials.verifier.harness._bank import bank_length
from kerneltrials.verifier.harness._failures import (
    candidate_failure,
    compile_failure,
    reference_failure,
)
from kerneltrials.verifier.harness._jobs import (
    ForgedReply,
    JobDied,
    Pending,
    WorkerFailed,
    WorkerJob,
)
from kerneltrials.verifier.harness._judge import (
    judge_outputs,
    judge_run_reply,
    reject_worker_findings,
)
from kerneltrials.verifier.harness._kept_run import read_kept_run
from kerneltrials.verifier.harness._output_reads import OutputReads
from kerneltrials.verifier.harness._sanitize import sanitize_candidate_text
from kerneltrials.verifier.harness._seeds import (
    bank_seed,
    input_seeds,
    pool_seeds,
    timing_pool_size,
)
from kerneltrials.verifier.harness._session import Outcome, Session, load_trusted
from kerneltrials.verifier.harness._work_share import MalformedWork, checked_work
from kerneltrials.verifier.protocol import CompileError
from kerneltrials.verifier.verdict import ConfigResult, Status

INIT_SEED = 42
#: At most this many correctness input seeds per configuration (CheckOptions.seeds),
#: each derived from the run's secret (_seeds.py); the reference draws inputs with seed + 1.
MAX_INPUT_SEEDS = 4


def build_stage(session: Session) -> list[BuiltArtifact]:
    """Collect the candidate's ``load_inline`` requests, check them, and build (or find)
    each in the cache (``build/_jobs``); the run stage installs them (:func:`install_stage`)."""
    started = time.perf_counter()
    items = lookup_artifacts(session.source, session.options.backend)
    if items is not None:  # this exact source was built before: its libraries are intact
        check_flags([item.request for item in items])
    else:
        items = _build(session)
        record_artifacts(session.source, session.options.backend, items)
    session.durations_s["build"] = time.perf_counter() - started
    session.build_info = {
        "cache_hit": all(item.artifact.cache_hit for item in items),
        "build_s": sum(item.artifact.build_s for item in items),
        "keys": [item.artifact.key for item in items],
        "paths": [describe_build(item.artifact.details, item.artifact.cache_hit) for item in items],
    }
    if session.options.resolved_link_policy():
        _link_policy(session, items)
    return items


def _link_policy(session: Session, items: list[BuiltArtifact]) -> None:
    """The candidate's own objects may import only the allow-list (builds/_symbols.py);
    the symbols were read by the parent when it published the build (a cache hit reads
    the same record)."""
    policy = session.options.policy or "strict"
    records = [read_link_record(Path(item.artifact.library_path).parent) for item in items]
    rejected, notes = link_findings(records, policy, session.options.backend)
    if rejected:
        raise Outcome(Status.REJECTED, *rejected)
    session.reasons += [note for note in notes if note not in session.reasons]


def _build(session: Session) -> list[BuiltArtifact]:
    try:
        return build_artifacts(session)
    except (WorkerFailed, JobDied, ForgedReply) as error:  # the collect job: candidate code
        raise candidate_failure(error, "build") from error
    except CompileJobFailed as failed:
        known = _compile_error_of_source(session, failed.error)
        if known is not None:
            raise known from failed
        raise compile_failure(failed.error, failed.wall_s,
                              session.options.build_cpu_time_s) from failed
    except LinkToolMissing as error:  # fail closed: unchecked is not allowed
        raise Outcome(Status.ERROR, f"harness:link:no_nm:{error}") from error
    except CompileError as error:
        raise Outcome(Status.COMPILE_ERROR, f"build:compile_error:{error}") from error


def _compile_error_of_source(session: Session, failure: Exception) -> Outcome | None:
    """The compiler's errors at the candidate's lines, recorded for this source, when the
    compiler pinned the failure on it; None for any other failure of the compile job."""
    if not (isinstance(failure, WorkerFailed) and failure.kind == "compile_error"):
        return None
    readable = readable_compile_error(failure.detail, session.source, "the candidate")
    if readable is None:
        return None
    reason = (f"build:compile_error:{sanitize_candidate_text(str(failure), 200)}\n"
              f"{sanitize_candidate_text(readable, 3000)}")
    record_compile_failure(session.source, session.options.backend, [reason])
    return Outcome(Status.COMPILE_ERROR, reason)


def raise_known_compile_failure(source: str, backend: str) -> None:
    """This exact source failed to compile before, with this toolchain: the same verdict
    now, without starting a worker (the build entry, ``_check._build``, asks before it
    launches anything)."""
    reasons = lookup_compile_failure(source, backend)
    if reasons is not None:
        raise Outcome(Status.COMPILE_ERROR, *reasons,
                      "build:cached:this exact source failed to compile before")


def install_stage(session: Session, items: list[BuiltArtifact]) -> None:
    """Copy the built libraries where the candidate job reads them, each checked against
    its digest. A library that is missing or changed on this node (evicted, tampered, or
    not installed from another node) is built again here, once."""
    handed = hand_off(session, items)
    if handed is None:
        handed = hand_off(session, build_stage(session))
    if handed is None:
        raise Outcome(Status.ERROR, "harness:build_cache:a library changed between its "
                                    "publication and its hand-off")
    session.artifacts = handed


def launch_workers(session: Session) -> tuple[WorkerJob, WorkerJob]:
    """Start the reference worker (it never sees the candidate) and the candidate worker.

    Started once the build is done (a compile error answers without them); in the
    ``process`` sandbox a zygote forks both with torch already imported. Time they wait
    on the harness is given back to their wall clocks (:func:`load_workers`).
    """
    try:
        reference = session.start_worker("reference", session.options.run_timeout_s * 2)
        candidate = session.start_worker("candidate", session.options.run_timeout_s)
    except SandboxStartError as error:
        raise Outcome(Status.ERROR, f"harness:sandbox:{error}") from error
    return reference, candidate


def load_task_request(session: Session) -> wire.LoadTask:
    """What loads the task into a worker; both timed sides use every core this parent may
    use (the worker counts nothing)."""
    task = session.task
    return wire.LoadTask(source=task.source, path=task.path, task_id=task.id, name=task.name,
                         backend=session.options.backend, threads=usable_cores(),
                         signed_inputs=session.options.inputs == "signed")


def load_candidate_request(session: Session) -> wire.LoadCandidate:
    """What loads the candidate, with its built artifacts, into a candidate worker."""
    return wire.LoadCandidate(candidate=str(session.candidate_path),
                              backend=session.options.backend, artifacts=session.artifacts)


def setup_request(session: Session, config: ShapeConfig,
                  pool_size: int | None = None) -> wire.Setup:
    """What sets ``config`` up in a worker: its model, ``pool_size`` timing input sets (by
    default as many as the check's input mode uses) and the check's factor bank (when
    timed inputs are fresh)."""
    if pool_size is None:
        pool_size = timing_pool_size(session.options.fresh_inputs)
    fresh = session.options.fresh_inputs
    return wire.Setup(config=config.name, overrides=config.overrides, init_seed=INIT_SEED,
                      pool_seeds=pool_seeds(session.hidden_seed, config.name, pool_size),
                      bank_seed=bank_seed(session.hidden_seed) if fresh else 0,
                      bank_length=bank_length(session.task, session.configs) if fresh else 0)


def load_workers(session: Session, reference: WorkerJob, candidate: WorkerJob,
                 idle_s: float = 0.0) -> None:
    """Load the task into both workers and the candidate into its own; ``idle_s`` is how
    long they waited on the harness since they started (not counted against them)."""
    for worker in (reference, candidate):
        worker.process.extend_deadline(idle_s)
    task, timeout = session.task, session.options.call_timeout_s
    load = load_task_request(session)
    try:  # each waits for its worker's imports: the two overlap
        reference_load = reference.send(load, timeout)
    except (WorkerFailed, JobDied, ForgedReply) as error:
        raise reference_failure(error, task.path) from error
    try:
        candidate_load = candidate.send(load, timeout)
    except (WorkerFailed, JobDied, ForgedReply) as error:
        raise candidate_failure(error, "load") from error
    session.confirm_output_quota(candidate.startup_pids)  # up, and no candidate code ran yet
    try:
        reference.reply(reference_load)
    except (WorkerFailed, JobDied, ForgedReply) as error:
        raise reference_failure(error, task.path) from error
    try:
        candidate.reply(candidate_load)
        loaded = candidate.request(load_candidate_request(session), timeout)
    except (WorkerFailed, JobDied, ForgedReply) as error:
        raise candidate_failure(error, "load") from error
    if loaded.integrity:  # importing the candidate changed watched state
        raise reject_worker_findings(loaded.integrity)


def _setup_config(session: Session, reference: WorkerJob, candidate: WorkerJob,
                  config: ShapeConfig) -> None:
    setup = setup_request(session, config)
    timeout = session.options.call_timeout_s
    # Both workers draw the configuration's inputs at once, on their own cores: the
    # candidate's setup is untimed, and the reference's outputs go where it cannot look.
    try:
        candidate_setup = candidate.send(setup, timeout)
    except (WorkerFailed, JobDied, ForgedReply) as error:
        raise candidate_failure(error, f"setup[{config.name}]") from error
    try:
        reference_work: list[Pending[Any]] = [reference.send(setup, timeout), reference.send(
            wire.PoolReference(config=config.name, path=session.pool_path(config.name)),
            timeout)]
    except (WorkerFailed, JobDied, ForgedReply) as error:
        raise reference_failure(error, session.task.path) from error
    try:
        candidate.reply(candidate_setup)
    except (WorkerFailed, JobDied, ForgedReply) as error:
        raise candidate_failure(error, f"setup[{config.name}]") from error
    _collect_alone(session, reference, reference_work)


def _collect_alone(session: Session, reference: WorkerJob, pending: list[Pending[Any]]) -> list[Any]:
    """The replies to reference requests sent while the candidate's job ran beside them,
    read once that job is frozen: each gets its whole budget from then on, so a
    candidate that spun threads to slow the reference down cannot make it miss its
    timeout (an ``error``, which is never charged and would erase its own verdict)."""
    try:
        return [reference.reply(request, whole_budget=True) for request in pending]
    except (WorkerFailed, JobDied, ForgedReply) as error:
        raise reference_failure(error, session.task.path) from error


def _inputs_request(session: Session, config: ShapeConfig, seed: int) -> wire.Inputs:
    """The reference draws one correctness seed's inputs where both workers read them."""
    return wire.Inputs(config=config.name, seed=seed, path=session.inputs_path(config.name, seed))


def _reference_inputs(session: Session, reference: WorkerJob, config: ShapeConfig,
                      seed: int) -> None:
    try:
        reference.request(_inputs_request(session, config, seed), session.options.call_timeout_s)
    except (WorkerFailed, JobDied, ForgedReply) as error:
        raise reference_failure(error, session.task.path) from error


def _check_one_seed(session: Session, reference: WorkerJob, candidate: WorkerJob,
                    config: ShapeConfig, seed: int, result: ConfigResult, replay: bool,
                    keep_inputs: bool = False, next_seed: int | None = None,
                    reads: OutputReads | None = None) -> None:
    """One input seed's guarded run, judged against the reference. Its inputs exist
    already; while the candidate runs, the reference worker computes its outputs for
    them and draws ``next_seed``'s inputs (its work is trusted and untimed, and the
    candidate's run is not timed either: the two share the cores, not a measurement).
    The candidate's reply is read first, which freezes its job: the reference's replies
    are then waited for alone (:func:`_collect_alone`). With ``reads`` the run's tensors
    are read out of the frozen worker (``_kept_run``), else from the file it saves."""
    tag = f"{config.name}-{seed}"
    paths = {"inputs": session.inputs_path(config.name, seed),
             "reference": session.path("private", f"reference-{tag}.pt"),
             "outputs": session.path("candidate-out", f"outputs-{tag}.pt")}
    timeout = session.options.call_timeout_s
    keep = reads is not None and not reads.unavailable
    try:
        run = candidate.send(wire.Run(config=config.name, inputs_path=paths["inputs"],
                                      path=paths["outputs"], replay=replay, seed=seed,
                                      keep=keep), timeout)
    except (WorkerFailed, JobDied, ForgedReply) as error:
        raise candidate_failure(error, f"run[{config.name}]") from error
    try:
        reference_work: list[Pending[Any]] = [reference.send(wire.Reference(
            config=config.name, inputs_path=paths["inputs"], path=paths["reference"],
            weigh=str(session.options.policy) == "mixed"), timeout)]
        if next_seed is not None:
            reference_work.append(
                reference.send(_inputs_request(session, config, next_seed), timeout))
    except (WorkerFailed, JobDied, ForgedReply) as error:
        raise reference_failure(error, session.task.path) from error
    try:
        reply = candidate.reply(run)
    except (WorkerFailed, JobDied, ForgedReply) as error:
        raise candidate_failure(error, f"run[{config.name}]") from error
    ref_reply = _collect_alone(session, reference, reference_work)[0]
    try:
        session.reference_work[config.name] = checked_work(ref_reply.work, wire.WORK_KINDS)
    except MalformedWork as error:  # the reference worker runs trusted code only
        raise reference_failure(ForgedReply(f"work record: {error}"), session.task.path) from error
    judge_run_reply(session, config, reply)
    expected, inputs = load_trusted(paths["reference"]), load_trusted(paths["inputs"])
    produced = None
    if reads is not None and keep:
        produced = read_kept_run(reads, reply, expected, inputs)
        session.isolation["timed_output_reads"] = reads.summary()
        if produced is None:  # the old way: the worker saves what it kept
            try:
                candidate.request(wire.SaveKept(path=paths["outputs"]), timeout)
            except (WorkerFailed, JobDied, ForgedReply) as error:
                raise candidate_failure(error, f"run[{config.name}]") from error
    judge_outputs(session, config, reply, paths, result, expected, inputs, produced)
    session.discard(paths["reference"], paths["outputs"])
    if not keep_inputs:
        session.discard(paths["inputs"])


def correctness_stage(session: Session, reference: WorkerJob, candidate: WorkerJob,
                      reads: OutputReads | None = None) -> bool:
    """Every configuration (hidden ones included) with several input seeds; ``reads``:
    the candidate's outputs are read out of its frozen worker where that is possible."""
    started = time.perf_counter()
    count = max(1, min(session.options.seeds, MAX_INPUT_SEEDS))
    all_passed = True
    for config in session.configs:
        seeds = input_seeds(session.hidden_seed, config.name, count)
        result = ConfigResult(name=config.name, kind=config.kind,
                              params=session.task.resolved_params(config.overrides), passed=True)
        session.results[config.name] = result
        _setup_config(session, reference, candidate, config)
        backward = session.task.backward
        _reference_inputs(session, reference, config, seeds[0])
        for index, seed in enumerate(seeds):  # poisoned replays on the first seed only
            _check_one_seed(session, reference, candidate, config, seed, result, index == 0,
                            keep_inputs=backward and index == 0,  # the backward check's
                            next_seed=seeds[index + 1] if index + 1 < len(seeds) else None,
                            reads=reads)
        if backward and result.passed:
            check_backward(session, reference, candidate, config, seeds[0], result)
        if backward:
            session.discard(session.inputs_path(config.name, seeds[0]))
        all_passed &= result.passed
    session.durations_s["correctness"] = time.perf_counter() - started
    return all_passed
