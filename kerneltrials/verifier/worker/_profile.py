"""The candidate worker's ``profile`` op: where a forward call spends its time.

PyTorch's profiler over a few calls on the timing inputs: operators by self time, with
the candidate's compiled functions appearing under their own names. Used for agent
feedback only (refine, coder-judge); it never influences a verdict.
"""

from __future__ import annotations

from typing import Any

import torch

from kerneltrials.verifier import protocol as wire
from kerneltrials.verifier.worker._fresh import clone_inputs
from kerneltrials.verifier.worker._state import WorkerState

TOP_OPS = 12
CUSTOM_LABEL = "custom code (ModelNew.forward outside aten ops)"


def profile_op(state: WorkerState, request: wire.Profile) -> wire.Profiled:
    """Top operators by self time over ``calls`` calls of one configuration."""
    config = state.configs[request.config]
    calls = max(1, request.calls)
    activities = [torch.profiler.ProfilerActivity.CPU]
    if state.device == "cuda":
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    inputs = [clone_inputs(config.pool[index % len(config.pool)]) for index in range(calls)]
    if request.device_range:
        return _in_device_range(config.model, inputs)
    with torch.no_grad(), torch.profiler.profile(activities=activities) as profiler:
        for call_inputs in inputs:
            # Time in this block that no aten op claims is the candidate's own code.
            with torch.profiler.record_function(CUSTOM_LABEL):
                config.model(*call_inputs)
        if state.device == "cuda":
            torch.cuda.synchronize()
    rows = []
    for event in profiler.key_averages():
        self_us = float(getattr(event, "self_device_time_total", 0) or 0) if (
            state.device == "cuda") else float(event.self_cpu_time_total)
        rows.append(wire.ProfileRow(op=event.key, calls=int(event.count) // calls or 1,
                                    self_ms_per_call=self_us / 1000 / calls))
    rows.sort(key=lambda row: row.self_ms_per_call, reverse=True)
    return wire.Profiled(top_ops=rows[:TOP_OPS], calls=calls)


def _in_device_range(model: Any, inputs: list[list[Any]]) -> wire.Profiled:
    """The calls inside ``cudaProfilerStart``/``Stop`` only: Nsight Compute, started with
    profiling off, measures exactly these (two PyTorch profilers would contend for the
    device's counters)."""
    with torch.no_grad():
        torch.cuda.synchronize()
        torch.cuda.profiler.start()
        try:
            for call_inputs in inputs:
                model(*call_inputs)
            torch.cuda.synchronize()
        finally:
            torch.cuda.profiler.stop()
    return wire.Profiled(top_ops=[], calls=len(inputs))
