"""Any timed call may be checked: the parent reads a frozen candidate's outputs itself.

After each timed batch the candidate's job is frozen (``_jobs.WorkerJob``), and its
worker has kept every call's output alive and said where each lies (``Timed.outputs``).
The parent draws calls with its own random source and reads those outputs straight out
of the frozen process (``process_vm_readv``), so no candidate code runs between a timed
call and the read of its output: work deferred until someone looks is never done, and
nothing in the process tells a checked call from another (the draw happens after the
batch, in the parent). Pages the candidate left unmapped or unreadable are a rejection.

Calls: each timed call is read with probability p, chosen per configuration from the
number of calls N it is expected to time, so that a candidate wrong on a fraction f of
them escapes with probability (1 - p·q)^(f·N) <= 0.001 at f = 5%:
p = (1 - 0.001^(1 / (0.05·N))) / q, at most 1 (N = 20: p = 0.999; N = 400: p ≈ 0.29).

Elements: a read compares SAMPLED_ELEMENTS elements of each output tensor (all of a
smaller one) at positions drawn after the batch (``protocol.sample_positions``) with the
reference's same elements, not the whole output: the whole would cost the parent and the
reference worker tens of MB of copies and comparisons per read call. A call counts as
wrong from WRONG_ELEMENT_SHARE of wrong elements; a read sees such a call with
probability q = 1 - (1 - 0.005)^2048 > 0.99996. Fewer wrong elements skip about that
share of the call's work (an output element costs what every other does in the ops we
time), and the correctness stage compares whole outputs.

Needs the privilege to read another process's memory (root or ``CAP_SYS_PTRACE``);
without it, or on the GPU (device memory), the reads are skipped and the verdict's
``isolation.timed_output_reads`` says why: the spot checks still run.
"""

from __future__ import annotations

import errno
import math
import random
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import torch

from kerneltrials.sandbox import (
    MemoryReadError,
    read_process_elements,
    read_process_memory_into,
    read_process_ranges,
)
from kerneltrials.verifier import protocol as wire
from kerneltrials.verifier._options import CheckOptions
from kerneltrials.verifier.harness._compare import Comparison, compare_tensor
from kerneltrials.verifier.harness._jobs import WorkerJob
from kerneltrials.verifier.protocol import SAMPLED_ELEMENTS, sample_positions

MISS_BOUND = 0.001
CHEAT_SHARE = 0.05
#: A call counts as wrong from this share of wrong elements (of a larger output than
#: SAMPLED_ELEMENTS): fewer skip about that share of its work, no speed worth having.
WRONG_ELEMENT_SHARE = 0.005
#: Reads of one batch's drawn outputs taking longer than this are stalled on purpose.
READ_WATCHDOG_S = 20.0
#: An output larger than this is not read (it could not fit the parent's memory twice).
MAX_OUTPUT_BYTES = 4 * 1024**3
#: Sampled elements nearer than this share one read range (``_read_merged``): copying a page
#: costs less than the kernel's pinning of one more range. At most a page (Linux pages are
#: 4 KiB or more), so every page a range touches holds a sampled element.
MERGE_GAP_BYTES = 4096
_PRIVILEGE = (errno.EPERM, errno.EACCES)


def keeps_outputs(options: CheckOptions) -> bool:
    """Whether timed batches keep their outputs for the parent: the cpu backend's outputs
    are in host memory; device memory is not readable this way (spot checks only)."""
    return options.read_timed_outputs and options.backend == "cpu"


def sample_detection(wrong_share: float = WRONG_ELEMENT_SHARE) -> float:
    """The chance that one read of a call wrong on ``wrong_share`` of its elements sees
    a wrong one (every element of an output of at most SAMPLED_ELEMENTS is compared)."""
    return 1.0 - (1.0 - wrong_share) ** SAMPLED_ELEMENTS


def check_probability(expected_calls: int) -> float:
    """p such that (1 - p·q)^(CHEAT_SHARE·N) <= MISS_BOUND for N expected timed calls,
    where q is a read's chance to see a wrong call (:func:`sample_detection`)."""
    calls = max(1, expected_calls)
    return min(1.0, (1.0 - MISS_BOUND ** (1.0 / (CHEAT_SHARE * calls))) / sample_detection())


class UnreadableOutput(Exception):
    """A timed output the candidate said was at some place cannot be read there."""


@dataclass
class OutputReads:
    """The reads of one candidate worker, over the whole verification."""

    worker: WorkerJob
    pid: int | None = None
    unavailable: str | None = None  # why nothing is read here (then the spot checks alone)
    probability: float = 1.0  # of the configuration being timed
    read_calls: int = 0
    timed_calls: int = 0
    runs_read: int = 0  # guarded runs whose tensors were read whole (``_kept_run``)
    #: The draw: the operating system's randomness, which nothing in the job can predict.
    rng: random.Random = field(default_factory=random.SystemRandom)
    #: Buffers the whole reads fill, reused from one run to the next (``new_run``): a fresh
    #: one faults its pages in during the read, which made the reads of a softmax check's
    #: correctness stage take 3.7 s instead of 1.0 s.
    _buffers: list[torch.Tensor] = field(default_factory=list, repr=False)
    _next_buffer: int = 0

    def summary(self) -> dict[str, object]:
        if self.unavailable:
            return {"read": False, "why": self.unavailable}
        return {"read": True, "calls_read": self.read_calls, "calls_timed": self.timed_calls,
                "runs_read": self.runs_read}

    def draw(self, n_calls: int) -> list[int]:
        """The calls of a batch to read (the parent's draw, after the batch ran)."""
        self.timed_calls += n_calls
        chosen = [index for index in range(n_calls) if self.rng.random() < self.probability]
        self.read_calls += len(chosen)
        return chosen

    def read_sample(self, region: wire.Region, positions: list[int]) -> torch.Tensor | None:
        """The elements at flat ``positions`` of the tensor at ``region`` in the frozen
        worker; None where reads are not possible here (recorded in :attr:`unavailable`)."""
        pid = self._pid()
        if pid is None:
            return None
        try:
            return _read_sample(self.worker, pid, region, positions)
        except MemoryReadError as error:
            if error.errno in _PRIVILEGE:
                self.unavailable = str(error)
                return None
            raise UnreadableOutput(str(error)) from None

    def read_whole(self, region: wire.Region, like: torch.Tensor) -> torch.Tensor:
        """The whole tensor at ``region`` in the frozen worker, which must have ``like``'s
        dtype and shape (the parent reads no more than the tensor it expects).

        Raises:
            UnreadableOutput: reads are not possible here (then :attr:`unavailable` says
                why), the region is no such tensor, or its bytes cannot be read.
        """
        pid = self._pid()
        if pid is None:
            raise UnreadableOutput(f"no reads: {self.unavailable}")
        if (region.device != "cpu" or region.dtype != str(like.dtype)
                or list(region.shape) != list(like.shape)):
            raise UnreadableOutput("not the tensor expected")
        shape, strides = _described(region)
        size = _span_bytes(shape, strides, like.element_size()) if like.numel() else 0
        buffer = self._buffer(size)
        try:
            if size:
                read_process_memory_into(self.worker.process, pid,
                                         [(region.address, buffer.numpy().data)])
        except (MemoryReadError, ValueError) as error:
            if isinstance(error, MemoryReadError) and error.errno in _PRIVILEGE:
                self.unavailable = str(error)
            raise UnreadableOutput(str(error)) from None
        return buffer.view(like.dtype).as_strided(shape, strides)

    def new_run(self) -> None:
        """Whole reads from here on may reuse the buffers of the previous run's: nothing
        read before may be used after this."""
        self._next_buffer = 0

    def release(self) -> None:
        """Free the buffers of the whole reads (the stage that needed them is over)."""
        self._buffers.clear()
        self._next_buffer = 0

    def _buffer(self, size: int) -> torch.Tensor:
        if self._next_buffer == len(self._buffers):
            self._buffers.append(torch.empty(0, dtype=torch.uint8))
        if self._buffers[self._next_buffer].numel() < size:
            self._buffers[self._next_buffer] = torch.empty(size, dtype=torch.uint8)
        self._next_buffer += 1
        return self._buffers[self._next_buffer - 1][:size]

    def _pid(self) -> int | None:
        """The worker's host pid, or None where reads are not possible here."""
        if self.unavailable:
            return None
        if self.pid is None:
            self.pid = self.worker.process.channel_holder_pid()
            if self.pid is None:
                self.unavailable = "the worker's host pid is not known"
        return self.pid


def _dtype(name: str) -> torch.dtype:
    found = getattr(torch, name.removeprefix("torch."), None)
    if not isinstance(found, torch.dtype):
        raise UnreadableOutput(f"unknown dtype {name[:40]!r}")
    return found


def _described(region: wire.Region) -> tuple[list[int], list[int]]:
    """The region's shape and strides, if they describe a tensor at all."""
    shape, strides = list(region.shape), list(region.strides)
    if len(shape) != len(strides) or any(n < 0 for n in shape) or any(s < 0 for s in strides):
        raise UnreadableOutput(f"shape {shape[:8]} and strides {strides[:8]} do not describe a tensor")
    return shape, strides


def _span_bytes(shape: list[int], strides: list[int], itemsize: int) -> int:
    """Bytes from a (non-empty) tensor's first element to past its last, if no more than
    an output may span."""
    extent = (sum((n - 1) * s for n, s in zip(shape, strides, strict=True)) + 1) * itemsize
    if extent > MAX_OUTPUT_BYTES:
        raise UnreadableOutput(f"an output spanning {extent} bytes")
    return extent


def _read_sample(worker: WorkerJob, pid: int, region: wire.Region,
                 positions: list[int]) -> torch.Tensor:
    """Read the elements at flat (row-major) ``positions`` of the tensor the worker says
    is at ``region``: each element's address from the region's shape and strides."""
    if region.device != "cpu":  # reads run on the cpu backend only: a claim, not a fact
        raise UnreadableOutput(f"a timed output said to be on {region.device[:20]!r}")
    dtype = _dtype(region.dtype)
    shape, strides = _described(region)
    if not positions:
        return torch.empty(0, dtype=dtype)
    itemsize = torch.empty((), dtype=dtype).element_size()
    span = _span_bytes(shape, strides, itemsize)
    if not 0 <= region.address < (1 << 63) - span:  # no process has memory up there
        raise UnreadableOutput(f"an output said to lie at {region.address:#x}, outside the "
                               "address space a process may use")
    remaining = torch.tensor(positions, dtype=torch.long)
    offsets = torch.zeros_like(remaining)
    for size, stride in zip(reversed(shape), reversed(strides), strict=True):
        offsets += (remaining % size) * stride
        remaining //= size
    # In int64 without overflow: the span is bounded, and the address below 2^63 less it.
    addresses = offsets * itemsize + region.address
    try:
        # n positions drawn over s bytes leave about n·exp(−n·gap/s) gaps wider than the
        # merge gap: over half of them for s above n·gap/ln 2, where merging gains nothing.
        if span < 2 * len(positions) * MERGE_GAP_BYTES:
            merged = _read_merged(worker, pid, addresses, itemsize, dtype)
            if merged is not None:
                return merged
        gathered = read_process_elements(worker.process, pid, addresses.tolist(), itemsize)
    except ValueError as error:
        raise UnreadableOutput(str(error)) from None
    return torch.frombuffer(gathered, dtype=dtype)


def _read_merged(worker: WorkerJob, pid: int, addresses: torch.Tensor, itemsize: int,
                 dtype: torch.dtype) -> torch.Tensor | None:
    """The elements at ``addresses``, read as the few ranges that cover them: elements
    less than ``MERGE_GAP_BYTES`` apart share one range. The kernel pins pages per remote
    range, so a sample of 2048 elements over 4 MB costs 0.68 ms as 280 ranges against
    1.18 ms as 2048 (``bench/output_reads.py``).
    None when a range is not all readable, which only an unreadable sampled element can
    make it (see ``MERGE_GAP_BYTES``): the caller reads the elements alone and decides on
    them, with the error an element's read gives."""
    ordered, order = torch.sort(addresses)
    starts_new = torch.ones_like(ordered, dtype=torch.bool)
    starts_new[1:] = ordered[1:] - ordered[:-1] > MERGE_GAP_BYTES
    if int(starts_new.sum()) * 2 > len(ordered):
        return None  # hardly anything shared: one element per range, as the gather reads
    range_of = torch.cumsum(starts_new, 0) - 1
    starts = ordered[starts_new]
    ends = torch.zeros_like(starts).scatter_reduce_(0, range_of, ordered + itemsize, "amax",
                                                    include_self=False)
    lengths = ends - starts
    before = torch.cumsum(lengths, 0) - lengths  # each range's place in the buffer
    try:
        raw = read_process_ranges(worker.process, pid, starts.tolist(), lengths.tolist())
    except MemoryReadError as error:
        if error.errno in _PRIVILEGE:
            raise
        return None
    # Every address is the region's plus a multiple of the item size, and so is each range's
    # start: the buffer is an array of the dtype, whatever lies between the elements.
    index = (before[range_of] + ordered - starts[range_of]) // itemsize
    values = torch.empty(len(ordered), dtype=dtype)
    values[order] = torch.frombuffer(raw, dtype=dtype)[index]
    return values


def wrong_read_calls(reads: OutputReads, reply: wire.Timed, drawn: list[int],
                     expected_for: Callable[[list[int]], list[list[dict[str, Any]]]],
                     tolerance: tuple[float, float], seed: int) -> list[int] | None:
    """The ``drawn`` calls (:meth:`OutputReads.draw`) whose output, sampled from the
    frozen worker at the positions ``seed`` gives (``protocol.sample_positions``), is
    wrong against the reference's same elements for the same input
    (``expected_for(drawn)``: per call, per output tensor, ``worker._samples`` records);
    None when nothing could be read.

    Raises:
        UnreadableOutput: an output is not where the worker said, or not a tensor.
    """
    if reads.unavailable:
        return None
    if len(reply.outputs) != len(reply.times_ms):
        raise UnreadableOutput(f"{len(reply.outputs)} output descriptions for "
                               f"{len(reply.times_ms)} calls")
    atol, rtol = tolerance
    expected = expected_for(drawn)
    with read_watchdog(reads.worker, "its timed outputs") as fired:
        try:
            wrong = _wrong_calls(reads, reply, drawn, expected, atol, rtol, seed)
        except UnreadableOutput:
            if not fired.is_set():
                raise
    if fired.is_set():  # the kill woke the read: whatever it returned is no answer
        raise UnreadableOutput(f"reading its outputs took over {READ_WATCHDOG_S:g} s (pages "
                               "a frozen job must serve first, e.g. behind a userfaultfd); "
                               "the job was killed")
    return wrong


@contextmanager
def read_watchdog(worker: WorkerJob, what: str) -> Iterator[threading.Event]:
    """Kill the candidate's job if reads of ``what`` out of it take over READ_WATCHDOG_S:
    its memory may be backed by something only its own (frozen) threads answer, and a read
    of it waits in the kernel, with no timeout of its own. The event says the kill happened."""
    fired = threading.Event()

    def kill() -> None:
        fired.set()
        worker.process.kill(f"a read of {what} hung")

    timer = threading.Timer(READ_WATCHDOG_S, kill)
    timer.daemon = True
    timer.start()
    try:
        yield fired
    finally:
        timer.cancel()


def _wrong_calls(reads: OutputReads, reply: wire.Timed, drawn: list[int],
                 expected: list[list[dict[str, Any]]], atol: float, rtol: float,
                 seed: int) -> list[int] | None:
    wrong = []
    for index, records in zip(drawn, expected, strict=True):
        regions = reply.outputs[index]
        if len(regions) != len(records):
            raise UnreadableOutput(f"call {index} described {len(regions)} output tensors, "
                                   f"the reference's has {len(records)}")
        result = Comparison()
        for leaf, (region, record) in enumerate(zip(regions, records, strict=True)):
            if list(region.shape) != record["shape"]:
                result.fail(f"correctness:shape[output{leaf}]")
                continue
            positions = sample_positions(seed, index, leaf, math.prod(record["shape"]))
            values = reads.read_sample(region, positions)
            if values is None:
                return None
            compare_tensor(record["values"], values, atol, rtol, result, f"output{leaf}",
                           scale=record["scale"])
        if not result.passed:
            wrong.append(index)
    return wrong
