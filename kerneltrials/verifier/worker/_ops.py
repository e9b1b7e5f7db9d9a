"""The worker's operations on tasks and candidates: load, set up, inputs, reference.

Each takes the typed request (``kerneltrials.verifier.protocol``) and returns the typed
reply; a :class:`WorkerFault` carries a failure kind the parent maps to a status.
Tensors are written to and read from files named by the parent. The guarded run and
timing are in ``_run``, backward in ``_backward``, profiling in ``_profile``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from kerneltrials.tasks import TaskError, parse_task_source
from kerneltrials.tasks._instantiate import load_task_module, make_inputs, make_model
from kerneltrials.verifier import protocol as wire
from kerneltrials.verifier.protocol import WorkerFault, map_leaves
from kerneltrials.verifier.worker._fresh import fresh_inputs, make_bank
from kerneltrials.verifier.worker._guards import (
    ComputeRecorder,
    KernelTracker,
    ReferenceRecorder,
)
from kerneltrials.verifier.worker._heap import keep_freed_blocks
from kerneltrials.verifier.worker._integrity import (
    ThreadWatch,
    integrity_changes,
    integrity_snapshot,
    load_watched_modules,
)
from kerneltrials.verifier.worker._intercept import import_with_artifacts
from kerneltrials.verifier.worker._op_work import warm_up as warm_up_op_work
from kerneltrials.verifier.worker._openmp import rest_threads
from kerneltrials.verifier.worker._samples import sampled_output
from kerneltrials.verifier.worker._state import (
    ConfigState,
    WorkerState,
    format_exc,
    load_inputs,
)
from kerneltrials.verifier.worker._timing import make_device_ops, use_threads


def warm_up(role: str) -> None:
    """Load what the run ops would load on first use, before the worker reports ready.

    The candidate's worker imports dynamo (1.5 s of CPU here) before its integrity
    snapshot, so that a candidate importing it later does not look like tampering, and
    the decompositions its calls' op weights come from (``_op_work``), so no timed call
    pays for them. The reference worker skips both (1.5 s of CPU per check where no zygote
    has them loaded): it weighs its ops only under ``mixed``, outside any timing. Only
    harness code runs here.
    """
    if role == "collect":  # no run ops in a build job
        return
    # The parent reads these files at once from a directory only this run writes: a
    # checksum over every tensor saved (tens of MB per call) would guard nothing here.
    torch.serialization.set_crc32_options(False)
    keep_freed_blocks()  # before any call, in both timed workers alike
    if role == "candidate":
        load_watched_modules()
    with ComputeRecorder() if role == "candidate" else ReferenceRecorder():
        torch.ones(1).add(1)
    if role == "candidate":  # its calls weigh their ops on every call, timed ones too
        warm_up_op_work()


def load_task_op(state: WorkerState, request: wire.LoadTask) -> wire.TaskLoaded:
    state.task = parse_task_source(request.source, request.path, request.task_id, request.name)
    state.device = "cuda" if request.backend == "cuda" else "cpu"
    state.signed_inputs = request.signed_inputs
    threads = use_threads(request.threads)
    state.ops = make_device_ops(state.device)
    return wire.TaskLoaded(threads=threads)


def load_candidate_op(state: WorkerState, request: wire.LoadCandidate) -> wire.CandidateLoaded:
    if state.role != "candidate" or state.ops is None:
        raise WorkerFault("protocol", "only a candidate worker loads candidates, after load_task")
    artifacts = [(item.request, item.artifact) for item in request.artifacts]
    tracker = state.tracker = KernelTracker(state.ops.synchronize)
    state.integrity = integrity_snapshot(state.handlers)  # before any candidate code runs
    try:
        module = import_with_artifacts(Path(request.candidate), request.backend, artifacts,
                                       wrap=tracker.wrap_module)
    except Exception as error:
        raise WorkerFault("import_error", f"{type(error).__name__}: {error}", format_exc()) from error
    if not isinstance(getattr(module, "ModelNew", None), type):
        raise WorkerFault("no_model_new", "the candidate defines no class ModelNew")
    state.candidate = module
    state.threads = ThreadWatch(pool_allowance=torch.get_num_threads() + 1)
    changes = integrity_changes(state.integrity, integrity_snapshot(state.handlers))
    return wire.CandidateLoaded(integrity=changes)


def _copy_weights(reference: torch.nn.Module, candidate: torch.nn.Module) -> bool:
    """Load the reference's weights when keys and shapes match (as KernelBench does)."""
    ref_state, new_state = reference.state_dict(), candidate.state_dict()
    if set(ref_state) != set(new_state) or not ref_state:
        return False
    if any(ref_state[key].shape != new_state[key].shape for key in ref_state):
        return False
    candidate.load_state_dict(ref_state)
    return True


def setup_op(state: WorkerState, request: wire.Setup) -> wire.SetupDone:
    assert state.task is not None
    try:
        module = load_task_module(state.task, request.overrides)
        model = make_model(module, state.task, request.init_seed, state.device)
        pool = [make_inputs(module, state.task, seed, state.device, signed=state.signed_inputs)
                for seed in request.pool_seeds]
    except TaskError as error:
        raise WorkerFault("task_error", error.cause) from error
    except Exception as error:
        raise WorkerFault("task_error", f"{type(error).__name__}: {error}", format_exc()) from error
    weights_copied = False
    if state.role == "candidate":
        reference = model
        try:
            module.ModelNew = state.candidate.ModelNew  # type: ignore[attr-defined]
            model = make_model(module, state.task, request.init_seed, state.device,
                               cls_name="ModelNew")
        except Exception as error:
            raise WorkerFault("candidate_exception", f"constructing ModelNew failed: "
                              f"{type(error).__name__}: {error}", format_exc()) from error
        weights_copied = _copy_weights(reference, model)
    if request.bank_seed:
        state.bank = make_bank(pool, request.bank_seed, state.device, state.bank,
                               request.bank_length)
    state.configs[request.config] = ConfigState(
        module=module, model=model, pool=pool, bank=state.bank if request.bank_seed else None)
    return wire.SetupDone(weights_copied=weights_copied)


def to_cpu(value: Any) -> Any:
    return map_leaves(value, lambda x: x.detach().to("cpu") if isinstance(x, torch.Tensor) else x)


def inputs_op(state: WorkerState, request: wire.Inputs) -> wire.Count:
    assert state.task is not None and state.role == "reference"
    config = state.configs[request.config]
    inputs = make_inputs(config.module, state.task, request.seed, state.device,
                         signed=state.signed_inputs)
    torch.save(to_cpu(inputs), request.path)
    return wire.Count(count=len(inputs))


def reference_op(state: WorkerState, request: wire.Reference) -> wire.ReferenceRan:
    config = state.configs[request.config]
    inputs = load_inputs(state, request.inputs_path, mapped=state.role == "reference")
    recorder = ReferenceRecorder()  # its work is the mixed policy's yardstick
    output = _reference_call(config, inputs, recorder)
    torch.save(to_cpu(output), request.path)
    return wire.ReferenceRan(work=recorder.take_work() if request.weigh else {})


def _reference_call(config: ConfigState, inputs: list[Any],
                    recorder: ComputeRecorder | None = None) -> Any:
    with torch.no_grad():
        try:
            if recorder is None:
                return config.model(*inputs)
            with recorder:
                return config.model(*inputs)
        except Exception as error:
            raise WorkerFault("task_error", f"the reference crashed: {type(error).__name__}: "
                              f"{error}", format_exc()) from error


def _save_pool_outputs(state: WorkerState, config_name: str, calls: list[tuple[int, int | None]],
                       path: str, sampled: tuple[int, list[int]] | None = None) -> wire.Count:
    """The reference's outputs for timing-pool calls (pool set, offset or None for a plain
    copy), built exactly as the timed worker built their inputs, saved as a list: whole,
    or with ``sampled`` (seed, each call's index in its batch) their sampled elements."""
    if state.role != "reference":
        raise WorkerFault("protocol", "only the reference worker computes reference outputs")
    config = state.configs[config_name]

    def output(pool: int, offset: int | None) -> Any:
        inputs = fresh_inputs(config.pool[pool % len(config.pool)], config.bank, offset)
        return _reference_call(config, inputs)

    if sampled is None:
        torch.save([to_cpu(output(pool, offset)) for pool, offset in calls], path)
    else:
        # Each output is cut to its sample before the next call runs: holding a batch's
        # whole outputs made every call's input and output memory the heap had never
        # served, faulted in page by page (a ReLU read 9.0 -> 2.7 ms per call).
        seed, indices = sampled
        torch.save([sampled_output(output(pool, offset), seed, index)
                    for (pool, offset), index in zip(calls, indices, strict=True)], path)
    return wire.Count(count=len(calls))


def pool_reference_op(state: WorkerState, request: wire.PoolReference) -> wire.Count:
    """Reference outputs of the timing pool: the re-addressed call compares with them."""
    config = state.configs[request.config]
    return _save_pool_outputs(state, request.config,
                              [(pool, None) for pool in range(len(config.pool))], request.path)


def fresh_reference_op(state: WorkerState, request: wire.FreshReference) -> wire.Count:
    """Reference outputs of timed calls the parent checks: each call's pool set scaled
    by the factors at its offset."""
    if len(request.pool) != len(request.offsets):
        raise WorkerFault("protocol", "one offset per checked call")
    if request.sample_seed is not None and len(request.calls) != len(request.pool):
        raise WorkerFault("protocol", "one batch index per sampled call")
    sampled = None if request.sample_seed is None else (request.sample_seed, request.calls)
    counted = _save_pool_outputs(state, request.config,
                                 list(zip(request.pool, request.offsets, strict=True)),
                                 request.path, sampled)
    rest_threads()  # asked between timed batches: this pool must not hold the cores
    return counted


def exit_op(state: WorkerState, request: wire.Exit) -> wire.Empty:
    return wire.Empty()
