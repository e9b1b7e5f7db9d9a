"""The candidate worker's guarded ``run`` and the ``time`` op of every worker.

``run`` calls the candidate several times on one input set and reports raw data only; the
parent judges it (``harness/_judge``):

1. a first call;
2. a measured call: time inside the compiled functions over the whole call (custom_share);
3. a re-addressed call: the first call's input buffers, refilled with timing-pool values
   (a candidate caching by address returns a stale answer);
4. poisoned replays: one compiled call's output overwritten with NaN per replay (a kernel
   whose result is discarded does not change the output).

Every call of the candidate, these and the timed ones, runs in one mode
(``_guards.WatchedCalls``): the compute recorder is on for each, so the aten ops of every
call are recorded (the policy) and its presence tells no call from another. Before each
call here, a freed block of the output's size is filled with NaN; after each, the
integrity snapshot and the OS thread count are compared. See docs/design/anticheat.md.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from typing import Any

import torch

from kerneltrials.verifier import protocol as wire
from kerneltrials.verifier.protocol import WorkerFault, leaves, map_leaves
from kerneltrials.verifier.worker._fresh import clone_inputs
from kerneltrials.verifier.worker._guards import (
    WatchedCalls,
    perturbed_malloc,
    poison_free_memory,
    tensors_in,
)
from kerneltrials.verifier.worker._integrity import integrity_changes, integrity_snapshot
from kerneltrials.verifier.worker._op_work import keep_most
from kerneltrials.verifier.worker._openmp import rest_threads
from kerneltrials.verifier.worker._state import ConfigState, WorkerState, format_exc, load_inputs
from kerneltrials.verifier.worker._timing import time_calls

_now_ns = time.perf_counter_ns  # bound before any candidate code runs
MAX_REPLAYS = 6  # poisoned replays per run: every compiled call when there are few


@dataclass
class Observations:
    """What the worker observed over a run's calls (sent as ``protocol.RunReport``)."""

    integrity: list[str] = field(default_factory=list)
    structures: list[Any] = field(default_factory=list)
    kernel_calls: list[int] = field(default_factory=list)
    kernel_names: list[str] = field(default_factory=list)  # of the first call
    ops: list[str] = field(default_factory=list)
    custom_share: float | None = None
    aliases_input: bool = False
    replays: list[wire.Replay] = field(default_factory=list)
    torch_work: dict[str, float] = field(default_factory=dict)

    def add_integrity(self, reasons: list[str]) -> None:
        self.integrity += [r for r in reasons if r not in self.integrity]


def describe_output(value: Any, device: str) -> Any:
    """Structure, exact types and placement, checked by the parent before values are trusted."""

    def describe(leaf: Any) -> dict[str, Any]:
        kind = f"{type(leaf).__module__}.{type(leaf).__qualname__}"
        if not isinstance(leaf, torch.Tensor):
            return {"type": kind, "exact_tensor": False}
        return {"type": kind, "exact_tensor": type(leaf) is torch.Tensor,
                "device": leaf.device.type, "expected_device": device, "layout": str(leaf.layout)}

    return map_leaves(value, describe)


def output_regions(value: Any) -> list[wire.Region]:
    """Where each tensor leaf of ``value`` lies (a non-tensor leaf: no region, and the
    parent's comparison fails on it)."""
    return [wire.Region(address=leaf.data_ptr(), dtype=str(leaf.dtype), shape=list(leaf.shape),
                        strides=list(leaf.stride()), device=leaf.device.type)
            for leaf in leaves(value) if isinstance(leaf, torch.Tensor)
            and leaf.layout == torch.strided]


def _storage_span(tensor: torch.Tensor) -> tuple[int, int]:
    storage = tensor.untyped_storage()
    return storage.data_ptr(), storage.data_ptr() + storage.nbytes()


def aliases(outputs: Any, inputs: list[Any]) -> bool:
    """Does any output share memory with any input?"""
    spans = [_storage_span(t) for t in tensors_in(inputs) if t.device.type != "meta"]
    for tensor in tensors_in(outputs):
        if tensor.device.type == "meta" or tensor.layout != torch.strided:
            continue
        start, end = _storage_span(tensor)
        if any(start < other_end and other_start < end and start != end
               for other_start, other_end in spans):
            return True
    return False


def _snapshot(value: Any) -> Any:
    """A CPU copy that later calls cannot change (the candidate may reuse its buffers);
    a tensor subclass is copied as a plain tensor."""

    def copy(leaf: Any) -> Any:
        if not isinstance(leaf, torch.Tensor):
            return leaf
        plain = leaf.as_subclass(torch.Tensor) if type(leaf) is not torch.Tensor else leaf
        return plain.detach().to("cpu", copy=True)

    return map_leaves(value, copy)


def guarded_call(state: WorkerState, config: ConfigState, inputs: list[Any], report: Observations,
                 *, measure: bool = False, poison: int | None = None) -> Any:
    """One call of the candidate with the guards around it; returns a CPU snapshot."""
    tracker, threads = state.tracker, state.threads
    assert tracker is not None and threads is not None and state.ops is not None
    poison_free_memory(state.output_bytes, state.device)
    tracker.reset(measure=measure, poison_index=poison)
    watch = WatchedCalls()
    with torch.no_grad(), perturbed_malloc(), watch.call():
        started = _now_ns()
        try:
            output = config.model(*inputs)
        except Exception as error:
            raise WorkerFault("candidate_exception", f"{type(error).__name__}: {error}",
                              format_exc()) from error
        state.ops.synchronize()
        elapsed_ns = max(1, _now_ns() - started)
    report.add_integrity(watch.findings())
    report.add_integrity(integrity_changes(state.integrity, integrity_snapshot(state.handlers)))
    report.add_integrity(threads.check())
    report.kernel_calls.append(len(tracker.names))
    if poison is None:  # a replay's record also holds the poisoning's own ops
        report.ops = sorted(set(report.ops) | watch.recorder.ops)
        keep_most(report.torch_work, watch.most_work)
    if len(report.kernel_calls) == 1:
        report.kernel_names = list(tracker.names)
    if measure:
        report.custom_share = min(1.0, tracker.inside_ns / elapsed_ns)
    report.structures.append(describe_output(output, state.device))
    report.aliases_input = report.aliases_input or aliases(output, inputs)
    state.output_bytes = sum(t.numel() * t.element_size() for t in tensors_in(output))
    return _snapshot(output)


def _refill(buffers: list[Any], values: list[Any]) -> bool:
    """Copy ``values`` into ``buffers`` in place (same addresses, new contents)."""
    pairs = list(zip(buffers, values, strict=False))
    if len(buffers) != len(values) or any(
            isinstance(b, torch.Tensor) and (not isinstance(v, torch.Tensor) or b.shape != v.shape)
            for b, v in pairs):
        return False
    with torch.no_grad():
        for buffer, value in pairs:
            if isinstance(buffer, torch.Tensor):
                buffer.copy_(value)
    return True


def run_op(state: WorkerState, request: wire.Run) -> wire.RunReport:
    """The guarded correctness run of the candidate on one input set (see module doc)."""
    if state.role != "candidate" or state.tracker is None:
        raise WorkerFault("protocol", "only the candidate worker runs the candidate")
    config = state.configs[request.config]
    state.kept_run = state.kept_outputs = None  # what earlier requests kept goes first
    # Read in, not mapped: mapped, the docker fork bomb's job (1 GiB) was killed by its
    # memory cgroup's OOM killer (dmesg: 532 MB anonymous + 324 MB of the mapped file) where
    # read in it was not; until that is understood, how a candidate is handed its inputs
    # must not push it over its limit (tests/sandbox/test_hostile_verdicts.py).
    inputs = load_inputs(state, request.inputs_path)
    report = Observations()
    first_inputs = clone_inputs(inputs)
    first = guarded_call(state, config, first_inputs, report)
    inputs_after = [_snapshot(x) for x in first_inputs]
    second = guarded_call(state, config, clone_inputs(inputs), report, measure=True)
    readdressed = None
    if _refill(first_inputs, config.pool[0]):
        readdressed = guarded_call(state, config, first_inputs, report)
    replayed = []
    if request.replay:
        for index in _replay_indices(len(report.kernel_names), request.seed):
            replayed.append(guarded_call(state, config, clone_inputs(inputs), report, poison=index))
            report.replays.append(wire.Replay(index=index, name=report.kernel_names[index],
                                              poisoned=state.tracker.poisoned_elements))
    produced = {"outputs": [first, second], "inputs_after": inputs_after,
                "readdressed": readdressed, "replays": replayed}
    kept: list[list[wire.Region]] = []
    if request.keep:  # the parent reads them out of this process, frozen (see Run)
        state.kept_run = produced
        items = [first, second, inputs_after, *([readdressed] if readdressed is not None
                                                else []), *replayed]
        kept = [output_regions(item) for item in items]
    else:
        torch.save(produced, request.path)
    return wire.RunReport(structures=report.structures, integrity=report.integrity,
                          kernel_calls=report.kernel_calls, ops=report.ops,
                          custom_share=report.custom_share, aliases_input=report.aliases_input,
                          replays=report.replays, readdressed=readdressed is not None,
                          torch_work=report.torch_work, kept=kept)


def save_kept_op(state: WorkerState, request: wire.SaveKept) -> wire.Count:
    """The last run's kept tensors saved as a run without ``keep`` saves them."""
    if state.kept_run is None:
        raise WorkerFault("protocol", "no run kept its tensors")
    torch.save(state.kept_run, request.path)
    return wire.Count(count=len(state.kept_run["outputs"]))


def _replay_indices(calls: int, seed: int) -> list[int]:
    if calls <= MAX_REPLAYS:
        return list(range(calls))
    return sorted(random.Random(seed).sample(range(calls), MAX_REPLAYS))


def time_op(state: WorkerState, request: wire.Time) -> wire.Timed:
    """Time ``n_calls`` calls; the candidate also reports integrity, the compute ops of
    every call, and the spot-checked calls' outputs."""
    assert state.ops is not None
    config = state.configs[request.config]
    call: Callable[..., Any] = config.model
    if request.mode == "compile":
        if config.compiled is None:
            config.compiled = torch.compile(config.model, mode="default")
        call = config.compiled
    # Every call alike: a spot-checked call runs exactly as the others do (the parent
    # compares its output, saved after the batch, and drops the batch's times).
    watch = WatchedCalls() if state.role == "candidate" else None
    spot = set(request.spot)
    state.kept_run = state.kept_outputs = None  # the previous batch's go before this one runs
    kept: dict[int, Any] = dict.fromkeys(range(request.n_calls) if request.keep else spot)
    if state.tracker is not None:
        state.tracker.reset()
    with torch.no_grad():
        try:
            times_ms = time_calls(call, config.pool, request.n_calls, state.ops, kept=kept,
                                  bank=config.bank, offsets=request.offsets,
                                  watch=watch.call if watch is not None else nullcontext)
        except Exception as error:
            kind = "baseline_error" if state.role == "reference" else "candidate_exception"
            raise WorkerFault(kind, f"{type(error).__name__}: {error}", format_exc()) from error
    reply = wire.Timed(times_ms=times_ms)
    if watch is not None:
        spots = {index: kept[index] for index in spot}
        reply = _candidate_timing_report(state, times_ms, spots, watch, request)
        if request.keep:
            reply = replace(reply, outputs=[output_regions(kept[index])
                                            for index in range(request.n_calls)])
    if request.keep:
        state.kept_outputs = kept
    rest_threads()  # the other side is timed next: this pool must not hold the cores
    return reply


def _candidate_timing_report(state: WorkerState, times_ms: list[float],
                             kept: dict[int, Any], watch: WatchedCalls,
                             request: wire.Time) -> wire.Timed:
    assert state.tracker is not None and state.threads is not None
    report = Observations()
    report.add_integrity(watch.findings())
    report.add_integrity(integrity_changes(state.integrity, integrity_snapshot(state.handlers)))
    report.add_integrity(state.threads.check())
    spots = [wire.Spot(index=index, structure=describe_output(output, state.device))
             for index, output in kept.items()]
    if kept and request.spot_path:
        torch.save([_snapshot(output) for output in kept.values()], request.spot_path)
    return wire.Timed(times_ms=times_ms, integrity=report.integrity,
                      kernel_calls=len(state.tracker.names), spots=spots,
                      ops=sorted(watch.recorder.ops), torch_work=watch.most_work)
