"""Any timed call may be checked: the parent reads a frozen candidate's outputs itself.

After each timed batch the candidate's job is frozen (``_jobs.WorkerJob``), and its
worker has kept every call's output alive and said where each lies (``Timed.outputs``).
The parent draws calls with its own random source and reads those outputs straight out
of the frozen process (``process_vm_readv``), so no candidate code runs between a timed
call and the read of its output: work deferred until someone looks is never done, and
nothing in the process tells a checked call from another (the draw happens after the
batch, in the parent). Pages the candidate left unmapped or unreadable are a rejection.

Sampling: each timed call is read with probability p, chosen per configuration from the
number of calls N it is expected to time, so that a candidate wrong on a fraction f of
them escapes with probability (1 - p)^(f·N) <= 0.001 at f = 5%:
p = 1 - 0.001^(1 / (0.05·N)), at most 1 (N = 20: p = 0.999; N = 400: p ≈ 0.29).

Needs the privilege to read another process's memory (root or ``CAP_SYS_PTRACE``);
without it, or on the GPU (device memory), the reads are skipped and the verdict's
``isolation.timed_output_reads`` says why: the spot checks still run.
"""

from __future__ import annotations

import errno
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import torch

from kerneltrials.sandbox import MemoryReadError, read_process_memory_into
from kerneltrials.verifier import protocol as wire
from kerneltrials.verifier._options import CheckOptions
from kerneltrials.verifier.harness._compare import compare_outputs
from kerneltrials.verifier.harness._jobs import WorkerJob

MISS_BOUND = 0.001
CHEAT_SHARE = 0.05
#: An output larger than this is not read (it could not fit the parent's memory twice).
MAX_OUTPUT_BYTES = 4 * 1024**3
_PRIVILEGE = (errno.EPERM, errno.EACCES)


def keeps_outputs(options: CheckOptions) -> bool:
    """Whether timed batches keep their outputs for the parent: the cpu backend's outputs
    are in host memory; device memory is not readable this way (spot checks only)."""
    return options.read_timed_outputs and options.backend == "cpu"


def check_probability(expected_calls: int) -> float:
    """p such that (1 - p)^(CHEAT_SHARE·N) <= MISS_BOUND for N expected timed calls."""
    calls = max(1, expected_calls)
    return min(1.0, 1.0 - MISS_BOUND ** (1.0 / (CHEAT_SHARE * calls)))


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
    #: The draw: the operating system's randomness, which nothing in the job can predict.
    rng: random.Random = field(default_factory=random.SystemRandom)

    def summary(self) -> dict[str, object]:
        if self.unavailable:
            return {"read": False, "why": self.unavailable}
        return {"read": True, "calls_read": self.read_calls, "calls_timed": self.timed_calls}

    def draw(self, n_calls: int) -> list[int]:
        """The calls of a batch to read (the parent's draw, after the batch ran)."""
        self.timed_calls += n_calls
        chosen = [index for index in range(n_calls) if self.rng.random() < self.probability]
        self.read_calls += len(chosen)
        return chosen

    def read(self, regions: list[wire.Region]) -> list[torch.Tensor] | None:
        """The tensors at ``regions`` in the frozen worker; None where reads are not
        possible here (recorded in :attr:`unavailable`)."""
        if self.unavailable:
            return None
        if self.pid is None:
            self.pid = self.worker.process.channel_holder_pid()
            if self.pid is None:
                self.unavailable = "the worker's host pid is not known"
                return None
        tensors = []
        for region in regions:
            try:
                tensors.append(_read_region(self.worker, self.pid, region))
            except MemoryReadError as error:
                if error.errno in _PRIVILEGE:
                    self.unavailable = str(error)
                    return None
                raise UnreadableOutput(str(error)) from None
        return tensors


def _dtype(name: str) -> torch.dtype:
    found = getattr(torch, name.removeprefix("torch."), None)
    if not isinstance(found, torch.dtype):
        raise UnreadableOutput(f"unknown dtype {name[:40]!r}")
    return found


def _read_region(worker: WorkerJob, pid: int, region: wire.Region) -> torch.Tensor:
    if region.device != "cpu":  # reads run on the cpu backend only: a claim, not a fact
        raise UnreadableOutput(f"a timed output said to be on {region.device[:20]!r}")
    dtype = _dtype(region.dtype)
    shape, strides = list(region.shape), list(region.strides)
    if len(shape) != len(strides) or any(n < 0 for n in shape) or any(s < 0 for s in strides):
        raise UnreadableOutput(f"shape {shape[:8]} and strides {strides[:8]} do not describe a tensor")
    if any(n == 0 for n in shape):
        return torch.empty(shape, dtype=dtype)
    itemsize = torch.empty((), dtype=dtype).element_size()
    extent = (sum((n - 1) * s for n, s in zip(shape, strides, strict=True)) + 1) * itemsize
    if extent > MAX_OUTPUT_BYTES:
        raise UnreadableOutput(f"an output spanning {extent} bytes")
    buffer = bytearray(extent)
    read_process_memory_into(worker.process, pid, [(region.address, buffer)])
    return torch.frombuffer(buffer, dtype=dtype).as_strided(shape, strides)


def _rebuilt(expected: object, tensors: list[torch.Tensor]) -> object | None:
    """The read tensors in the reference output's structure; None if their counts differ."""
    expected_tensors = [leaf for leaf in wire.leaves(expected) if isinstance(leaf, torch.Tensor)]
    if len(expected_tensors) != len(tensors):
        return None
    supply: Iterator[torch.Tensor] = iter(tensors)
    return wire.map_leaves(expected, lambda leaf: next(supply)
                           if isinstance(leaf, torch.Tensor) else leaf)


def wrong_read_calls(reads: OutputReads, reply: wire.Timed, drawn: list[int],
                     expected_for: Callable[[list[int]], list[object]],
                     tolerance: tuple[float, float]) -> list[int] | None:
    """The ``drawn`` calls (:meth:`OutputReads.draw`) whose output, read from the frozen
    worker, is wrong (compared with the reference's output for the same input,
    ``expected_for(drawn)``); None when nothing could be read.

    Raises:
        UnreadableOutput: an output is not where the worker said, or not a tensor.
    """
    if reads.unavailable:
        return None
    if len(reply.outputs) != len(reply.times_ms):
        raise UnreadableOutput(f"{len(reply.outputs)} output descriptions for "
                               f"{len(reply.times_ms)} calls")
    atol, rtol = tolerance
    wrong = []
    for index, expected in zip(drawn, expected_for(drawn), strict=True):
        tensors = reads.read(reply.outputs[index])
        if tensors is None:
            return None
        output = _rebuilt(expected, tensors)
        if output is None:
            raise UnreadableOutput(f"call {index} described {len(tensors)} output tensors")
        if not compare_outputs(expected, output, atol, rtol).passed:
            wrong.append(index)
    return wrong
