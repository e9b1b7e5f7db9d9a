"""Timing one side's calls inside a worker: the same loop for candidate and baselines.

See docs/design/timing.md. Each timed call gets fresh inputs (one of a few pre-generated
sets, scaled by factors the parent picked for that call: ``_fresh``), a cache flush, and a
device-wide synchronisation on each side.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any

import torch

from kerneltrials.verifier.worker._fresh import ScaleBank, fresh_inputs

#: Bytes touched between timed calls to evict caches (read on the CPU, written on the GPU). The LLC reported by a VM can be
#: hundreds of MiB (480 MiB here on 2 vCPUs); 64 MiB evicts the private caches and the
#: share of the LLC that one job can realistically keep hot, at a bounded cost.
CPU_FLUSH_BYTES = 64 * 1024 * 1024
GPU_FLUSH_BYTES = 256 * 1024 * 1024


@dataclass
class DeviceOps:
    """What differs between backends: placement, synchronisation, the timer, the flush."""

    device: str
    flush_buffer: torch.Tensor

    def synchronize(self) -> None:
        if self.device == "cuda":
            torch.cuda.synchronize()  # device-wide: every stream, not just the current one

    def flush(self) -> None:
        if self.device == "cuda":
            self.flush_buffer.add_(1)
        else:
            # A read evicts as a write does, at half the traffic (64 MiB: 0.7 against
            # 1.8 ms here), and leaves no dirty lines for the timed call to write back.
            self.flush_buffer.amax()
        self.synchronize()


def make_device_ops(device: str) -> DeviceOps:
    size = GPU_FLUSH_BYTES if device == "cuda" else CPU_FLUSH_BYTES
    buffer = torch.zeros(size // 4, dtype=torch.int32, device=device)
    return DeviceOps(device=device, flush_buffer=buffer)


def use_threads(threads: int) -> int:
    """Both sides time with the same thread count, the parent's: every usable core of
    the node (``kerneltrials._cpuinfo.usable_cores``, counted on the trusted side)."""
    torch.set_num_threads(max(1, threads))
    return torch.get_num_threads()


def time_calls(
    call: Callable[..., Any],
    input_pool: Sequence[Sequence[Any]],
    n_calls: int,
    ops: DeviceOps,
    timer: Callable[[], int] = time.perf_counter_ns,
    kept: dict[int, Any] | None = None,
    bank: ScaleBank | None = None,
    offsets: Sequence[int] = (),
    watch: Callable[[], AbstractContextManager[None]] = nullcontext,
) -> list[float]:
    """Milliseconds of ``n_calls`` calls, each on fresh inputs after a cache flush.

    ``kept``: call indices whose outputs the caller wants (spot checks of timed calls);
    their values are filled in, after the call's time was taken. ``offsets``: each call's
    window into ``bank`` (plain copies of the pool without them). ``watch``: entered around
    every call, outside its timer (the candidate's one mode, ``_guards.WatchedCalls``).
    """
    times_ms = []
    for index in range(n_calls):
        offset = offsets[index] if index < len(offsets) else None
        inputs = fresh_inputs(input_pool[index % len(input_pool)], bank, offset)
        ops.flush()
        with watch():
            if ops.device == "cuda":
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                output = call(*inputs)
                # Device-wide wait before the end event: work the call left on any other
                # stream (one it made itself, never joined) ends inside the measurement.
                ops.synchronize()
                end.record()
                end.synchronize()
                times_ms.append(float(start.elapsed_time(end)))
            else:
                started = timer()
                output = call(*inputs)
                times_ms.append((timer() - started) / 1e6)
        if kept is not None and index in kept:
            kept[index] = output
        del output
    return times_ms
