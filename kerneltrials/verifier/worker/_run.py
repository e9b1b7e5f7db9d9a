"""The candidate worker's guarded ``run`` and the ``time`` op of every worker.

``run`` calls the candidate several times on one input set and reports raw data only; the
parent judges it (``_judge``):

1. a guarded call: every aten compute op that executes is recorded (the policy);
2. a measured call: time inside the compiled functions over the whole call (custom_share);
3. a re-addressed call: the first call's input buffers, refilled with timing-pool values
   (a candidate caching by address returns a stale answer);
4. poisoned replays: one compiled call's output overwritten with NaN per replay (a kernel
   whose result is discarded does not change the output).

Before each call, a freed block of the output's size is filled with NaN; after each, the
integrity snapshot and the OS thread count are compared. See docs/design/anticheat.md.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from kerneltrials.verifier._faults import WorkerFault
from kerneltrials.verifier._guards import ComputeRecorder, perturbed_malloc, poison_free_memory
from kerneltrials.verifier._integrity import integrity_changes, integrity_snapshot
from kerneltrials.verifier._openmp import rest_threads
from kerneltrials.verifier._timing import time_calls
from kerneltrials.verifier._worker_ops import (
    ConfigState,
    WorkerState,
    _clone_all,
    _format_exc,
    _load_inputs,
)

_now_ns = time.perf_counter_ns  # bound before any candidate code runs
MAX_REPLAYS = 6  # poisoned replays per run: every compiled call when there are few


@dataclass
class RunReport:
    """What the worker observed; the parent decides what it means."""

    integrity: list[str] = field(default_factory=list)
    structures: list[Any] = field(default_factory=list)
    kernel_calls: list[int] = field(default_factory=list)
    kernel_names: list[str] = field(default_factory=list)  # of the first (guarded) call
    ops: list[str] = field(default_factory=list)
    custom_share: float | None = None
    aliases_input: bool = False

    def add_integrity(self, reasons: list[str]) -> None:
        self.integrity += [r for r in reasons if r not in self.integrity]


def describe_output(value: Any, device: str) -> Any:
    """Structure, exact types and placement, checked by the parent before values are trusted."""
    if isinstance(value, torch.Tensor):
        return {"type": f"{type(value).__module__}.{type(value).__qualname__}",
                "exact_tensor": type(value) is torch.Tensor, "device": value.device.type,
                "expected_device": device, "layout": str(value.layout)}
    if isinstance(value, list | tuple):
        return [describe_output(item, device) for item in value]
    return {"type": f"{type(value).__module__}.{type(value).__qualname__}", "exact_tensor": False}


def _tensors(value: Any) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, list | tuple):
        return [t for item in value for t in _tensors(item)]
    return []


def _storage_span(tensor: torch.Tensor) -> tuple[int, int]:
    storage = tensor.untyped_storage()
    return storage.data_ptr(), storage.data_ptr() + storage.nbytes()


def aliases(outputs: Any, inputs: list[Any]) -> bool:
    """Does any output share memory with any input?"""
    spans = [_storage_span(t) for t in _tensors(inputs) if t.device.type != "meta"]
    for tensor in _tensors(outputs):
        if tensor.device.type == "meta" or tensor.layout != torch.strided:
            continue
        start, end = _storage_span(tensor)
        if any(start < other_end and other_start < end and start != end
               for other_start, other_end in spans):
            return True
    return False


def _plain(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.as_subclass(torch.Tensor) if type(value) is not torch.Tensor else value
    if isinstance(value, list | tuple):
        return type(value)(_plain(item) for item in value)
    return value


def _snapshot(value: Any) -> Any:
    """A CPU copy that later calls cannot change (the candidate may reuse its buffers)."""
    if isinstance(value, torch.Tensor):
        return _plain(value).detach().to("cpu", copy=True)
    if isinstance(value, list | tuple):
        return type(value)(_snapshot(item) for item in value)
    return value


def guarded_call(state: WorkerState, config: ConfigState, inputs: list[Any], report: RunReport,
                 *, record: bool = False, measure: bool = False, poison: int | None = None) -> Any:
    """One call of the candidate with the guards around it; returns a CPU snapshot."""
    tracker = state.tracker
    poison_free_memory(state.output_bytes, state.device)
    tracker.reset(measure=measure, poison_index=poison)
    recorder = ComputeRecorder() if record else None
    started = _now_ns()
    with torch.no_grad(), perturbed_malloc():
        try:
            if recorder is not None:
                with recorder:
                    output = config.model(*inputs)
                    if not recorder.is_active():
                        report.add_integrity(["integrity:dispatch_guard_removed"])
            else:
                output = config.model(*inputs)
        except Exception as error:
            raise WorkerFault("candidate_exception", f"{type(error).__name__}: {error}",
                              _format_exc()) from error
    state.ops.synchronize()  # type: ignore[union-attr]
    elapsed_ns = max(1, _now_ns() - started)
    report.add_integrity(integrity_changes(state.integrity, integrity_snapshot()))
    report.add_integrity(state.threads.check())
    report.kernel_calls.append(len(tracker.names))
    if recorder is not None:
        report.ops, report.kernel_names = sorted(recorder.ops), list(tracker.names)
    if measure:
        report.custom_share = min(1.0, tracker.inside_ns / elapsed_ns)
    report.structures.append(describe_output(output, state.device))
    report.aliases_input = report.aliases_input or aliases(output, inputs)
    state.output_bytes = sum(t.numel() * t.element_size() for t in _tensors(output))
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


def run_op(state: WorkerState, request: dict[str, Any]) -> dict[str, Any]:
    """The guarded correctness run of the candidate on one input set (see module doc)."""
    if state.role != "candidate":
        raise WorkerFault("protocol", "only the candidate worker runs the candidate")
    config = state.configs[request["config"]]
    inputs = _load_inputs(state, request["inputs_path"])
    report = RunReport()
    first_inputs = _clone_all(inputs)
    first = guarded_call(state, config, first_inputs, report, record=True)
    inputs_after = [_snapshot(x) for x in first_inputs]
    second = guarded_call(state, config, _clone_all(inputs), report, measure=True)
    readdressed = None
    if _refill(first_inputs, config.pool[0]):
        readdressed = guarded_call(state, config, first_inputs, report)
    replays = []
    if request.get("replay"):
        for index in _replay_indices(len(report.kernel_names), int(request.get("seed", 0))):
            output = guarded_call(state, config, _clone_all(inputs), report, poison=index)
            replays.append({"index": index, "name": report.kernel_names[index], "output": output,
                            "poisoned": state.tracker.poisoned_elements})
    torch.save({"outputs": [first, second], "inputs_after": inputs_after,
                "readdressed": readdressed, "replays": [r["output"] for r in replays]},
               request["path"])
    return {"structures": report.structures, "integrity": report.integrity,
            "kernel_calls": report.kernel_calls, "ops": report.ops,
            "custom_share": report.custom_share, "aliases_input": report.aliases_input,
            "replays": [{k: r[k] for k in ("index", "name", "poisoned")} for r in replays],
            "readdressed": readdressed is not None}


def _replay_indices(calls: int, seed: int) -> list[int]:
    if calls <= MAX_REPLAYS:
        return list(range(calls))
    return sorted(random.Random(seed).sample(range(calls), MAX_REPLAYS))


def time_op(state: WorkerState, request: dict[str, Any]) -> dict[str, Any]:
    """Time ``n_calls`` calls; the candidate also reports integrity and spot-checked calls."""
    assert state.ops is not None
    config = state.configs[request["config"]]
    call: Callable[..., Any] = config.model
    if request.get("mode") == "compile":
        if config.compiled is None:
            config.compiled = torch.compile(config.model, mode="default")
        call = config.compiled
    spot = {int(i) for i in request.get("spot", [])}
    recorders: dict[int, ComputeRecorder] = {}
    if state.role == "candidate" and spot:
        call = _recording(call, spot, recorders,
                          lambda: poison_free_memory(state.output_bytes, state.device))
    kept: dict[int, Any] = dict.fromkeys(spot)
    if state.tracker is not None:
        state.tracker.reset()
    with torch.no_grad():
        try:
            times_ms = time_calls(call, config.pool, int(request["n_calls"]), state.ops, kept=kept)
        except Exception as error:
            kind = "baseline_error" if state.role == "reference" else "candidate_exception"
            raise WorkerFault(kind, f"{type(error).__name__}: {error}", _format_exc()) from error
    reply: dict[str, Any] = {"times_ms": times_ms}
    if state.role == "candidate":
        reply.update(_candidate_timing_report(state, config, kept, recorders, request))
    rest_threads()  # the other side is timed next: this pool must not hold the cores
    return reply


def _recording(call: Callable[..., Any], spot: set[int], recorders: dict[int, ComputeRecorder],
               poison: Callable[[], None]) -> Callable[..., Any]:
    """``call``, with freed memory poisoned and the compute recorder on for the
    spot-checked call indices (their times are dropped by the parent)."""
    counter = itertools.count()

    def maybe_recorded(*inputs: Any) -> Any:
        index = next(counter)
        if index not in spot:
            return call(*inputs)
        poison()  # recycled memory must not hold the previous timed call's answer
        recorders[index] = ComputeRecorder()
        with recorders[index], perturbed_malloc():
            return call(*inputs)

    return maybe_recorded


def _candidate_timing_report(state: WorkerState, config: ConfigState, kept: dict[int, Any],
                             recorders: dict[int, ComputeRecorder],
                             request: dict[str, Any]) -> dict[str, Any]:
    report = RunReport()
    report.add_integrity(integrity_changes(state.integrity, integrity_snapshot()))
    report.add_integrity(state.threads.check())
    spots = []
    for index, output in kept.items():
        spots.append({"index": index, "pool": index % len(config.pool),
                      "ops": sorted(recorders[index].ops) if index in recorders else [],
                      "structure": describe_output(output, state.device)})
    if kept and request.get("spot_path"):
        torch.save([_snapshot(output) for output in kept.values()], request["spot_path"])
    return {"integrity": report.integrity, "kernel_calls": len(state.tracker.names),
            "spots": spots}
