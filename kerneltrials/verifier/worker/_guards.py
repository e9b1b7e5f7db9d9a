"""Runtime guards inside the workers: what ran during ``forward``, and what changed.

- :class:`ComputeRecorder` records every aten compute op that executes, and its work
  (``_op_work``: the mixed policy weighs it against the reference's). It is a
  ``TorchDispatchMode``: it sits on the dispatcher's Python key, so it sees ops called from
  Python *and* from C++ extensions (``at::relu`` goes through the dispatcher too).
  :class:`WatchedCalls` puts it around every call of the candidate, so its presence tells
  no call from another (one mode).
- :class:`KernelTracker` wraps the candidate's extension modules at load time: it counts
  the calls into compiled code, measures the time spent there (``custom_share``) and, for
  the poisoned replay, overwrites one call's output with NaN.
- :func:`integrity_snapshot` records the identity of timers, synchronisation, comparison,
  RNG and harness functions and the global state (backend flags, thread counts, default
  dtype, the process's OS threads); :func:`integrity_changes` names what differs.

See docs/design/anticheat.md. The parent decides; these only report.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode, _get_current_dispatch_mode_stack

from kerneltrials.verifier.protocol import WORK_KINDS, leaves
from kerneltrials.verifier.worker._heap import mallopt
from kerneltrials.verifier.worker._op_work import (
    NOT_COMPUTE,
    base_name,
    keep_most,
    signature,
    total_work,
)

_now_ns = time.perf_counter_ns  # bound before any candidate code runs

def op_name(func: Any) -> str:
    """``aten.relu`` for ``aten.relu.default`` and ``aten.relu_.default`` alike."""
    return f"aten.{base_name(func)}"


def is_compute(func: Any) -> bool:
    name = base_name(func)
    return not func.is_view and name not in NOT_COMPUTE and not name.startswith("_foreach_empty")


class ComputeRecorder(TorchDispatchMode):
    """Records the compute ops that execute while it is active. Torch wraps its handler in
    dynamo's "disable": a frame dynamo compiles (a candidate has no business compiling,
    but could) never traces into it."""

    def __init__(self) -> None:
        super().__init__()
        self.ops: set[str] = set()
        #: Each compute op call since the last :meth:`take_work`, by signature (its work
        #: is worked out afterwards, outside the call: ``_op_work``).
        self.calls: Counter[Hashable] = Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        if is_compute(func):
            self.ops.add(op_name(func))
            self.calls[signature(func, args, kwargs or {})] += 1
        return func(*args, **(kwargs or {}))

    def take_work(self) -> dict[str, float]:
        """The work of the compute ops recorded since the last take (then forgotten)."""
        calls, self.calls = self.calls, Counter()
        return total_work(calls)

    def is_active(self) -> bool:
        """Still on the mode stack? (a candidate could try to pop it)"""
        return any(mode is self for mode in _get_current_dispatch_mode_stack())


class WatchedCalls:
    """The one mode every call of the candidate runs in, correctness and timed alike: the
    compute recorder on the dispatcher's mode stack for the call, entered and left outside
    any timer. A candidate that asks the dispatcher whether it is watched always hears
    yes; what it computed with PyTorch in any call is in :attr:`recorder`'s record."""

    def __init__(self) -> None:
        self.recorder = ComputeRecorder()
        self.guard_removed = False  # a call left the recorder off the stack
        #: Per kind, the most work PyTorch did in any one call (``WORK_KINDS``).
        self.most_work: dict[str, float] = dict.fromkeys(WORK_KINDS, 0.0)

    @contextmanager
    def call(self) -> Iterator[None]:
        self.recorder.__enter__()
        try:
            yield
        finally:
            stack = _get_current_dispatch_mode_stack()
            if stack and stack[-1] is self.recorder:
                self.recorder.__exit__(None, None, None)
            else:  # popped, or a mode left above it that saw the ops first: not ours to pop
                self.guard_removed = True
            keep_most(self.most_work, self.recorder.take_work())

    def findings(self) -> list[str]:
        """What the parent must hear about the recorder over the calls watched so far."""
        return ["integrity:dispatch_guard_removed"] if self.guard_removed else []


class ReferenceRecorder(ComputeRecorder):
    """The same record in the reference worker, without the wrapper: that imports dynamo
    on the first op (1.5 s of CPU per check), and nothing is ever compiled under this one
    (only trusted task code runs there; the compile baseline is timed without it)."""

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        return False

    # The candidate's recorder keeps its body inline (a module function would be one more
    # global to rebind); this one is the same body, unwrapped.
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        if is_compute(func):
            self.ops.add(op_name(func))
            self.calls[signature(func, args, kwargs or {})] += 1
        return func(*args, **(kwargs or {}))


def poison_tensor(tensor: torch.Tensor) -> None:
    """Overwrite ``tensor`` with a value no correct kernel produces: NaN, or a sentinel."""
    with torch.no_grad():
        if tensor.is_floating_point() or tensor.is_complex():
            tensor.fill_(float("nan"))
        elif tensor.dtype == torch.bool:
            tensor.logical_not_()
        else:
            tensor.fill_(-12345 if tensor.dtype != torch.uint8 else 201)


def tensors_in(value: Any) -> list[torch.Tensor]:
    """Every tensor in a nested output (lists and tuples of tensors and other values)."""
    return [leaf for leaf in leaves(value) if isinstance(leaf, torch.Tensor)]


class KernelTracker:
    """Counts, times and (for the replay) poisons calls into the candidate's extensions."""

    def __init__(self, synchronize: Callable[[], None]) -> None:
        self.synchronize = synchronize
        self.names: list[str] = []  # name of each call since the last reset
        self.inside_ns = 0
        self.measure = False
        self.poison_index: int | None = None
        self.poisoned_elements = 0  # 0 after a replay: nothing to poison (e.g. empty output)

    def reset(self, measure: bool = False, poison_index: int | None = None) -> None:
        self.names, self.inside_ns, self.poisoned_elements = [], 0, 0
        self.measure, self.poison_index = measure, poison_index

    def wrap_module(self, module: Any) -> Any:
        """A stand-in for an extension module whose functions report to this tracker."""
        return _tracked_extension(module, self)

    def call(self, name: str, function: Callable[..., Any], args: tuple[Any, ...],
             kwargs: dict[str, Any]) -> Any:
        index = len(self.names)
        self.names.append(name)
        poisoned = index == self.poison_index
        before = [t.clone() for t in tensors_in(args)] if poisoned else []
        if self.measure:
            self.synchronize()
            started = _now_ns()
        result = function(*args, **kwargs)
        if self.measure:
            self.synchronize()
            self.inside_ns += _now_ns() - started
        if poisoned:
            self.poisoned_elements = self._poison(result, tensors_in(args), before)
        return result

    @staticmethod
    def _poison(result: Any, arguments: list[torch.Tensor], before: list[torch.Tensor]) -> int:
        """Poison the call's outputs; returns how many elements were poisoned."""
        outputs = tensors_in(result)
        if not outputs:  # out-parameter style: poison the arguments the call wrote
            outputs = [new for new, old in zip(arguments, before, strict=True)
                       if new.shape == old.shape and not torch.equal(new.nan_to_num(), old.nan_to_num())]
        for tensor in outputs:
            poison_tensor(tensor)
        return sum(tensor.numel() for tensor in outputs)


def _tracked_extension(module: Any, tracker: KernelTracker) -> Any:
    """The raw module stays in this closure, out of the candidate's reach."""
    wrapped: dict[str, Any] = {}

    class TrackedExtension:
        def __getattr__(self, name: str) -> Any:
            if name not in wrapped:
                value = getattr(module, name)
                if callable(value) and not isinstance(value, type):
                    def tracked(*args: Any, _name: str = name, _fn: Any = value, **kwargs: Any) -> Any:
                        return tracker.call(_name, _fn, args, kwargs)
                    wrapped[name] = tracked
                else:
                    wrapped[name] = value
            return wrapped[name]

        def __dir__(self) -> list[str]:
            return dir(module)

    return TrackedExtension()


def poison_free_memory(nbytes: int, device: str) -> None:
    """Fill a freed block of ``nbytes`` with NaN, so recycled memory is not a stale answer."""
    if nbytes <= 0:
        return
    block = torch.empty(max(1, nbytes // 4), dtype=torch.float32, device=device)
    block.fill_(float("nan"))
    del block


_M_PERTURB = -6  # glibc mallopt: fill memory with a byte pattern on malloc and free
_PERTURB_BYTE = 0xA5  # malloc'd memory reads 0x5A5A5A5A: ~1.5e16 as float32, never an answer


@contextmanager
def perturbed_malloc() -> Iterator[None]:
    """While active, every heap allocation is filled with a pattern (glibc ``M_PERTURB``):
    an output tensor the candidate allocates but never writes cannot hold the stale answer
    of an earlier call at the same address (the recycled-memory attack, on CPU). On in the
    correctness stage only: a timed call's inputs are fresh, so a stale answer is wrong
    there anyway, and a memset of every allocation would be measured as the kernel's."""
    if not mallopt(_M_PERTURB, _PERTURB_BYTE):
        yield
        return
    try:
        yield
    finally:
        mallopt(_M_PERTURB, 0)


def os_thread_count() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 0
