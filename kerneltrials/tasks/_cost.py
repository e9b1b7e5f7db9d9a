"""FLOP and byte counts of one task configuration (for slicing scores and speed of light).

FLOPs come from the formulas of ``torch.utils.flop_counter``, which has them only
for matmuls, convolutions and attention. Ops it does not count (elementwise, reductions,
norms, ...) are listed in ``flops_note``; when it counts nothing at all ``flops`` is
``None`` rather than a misleading 0. Bytes are the sizes of inputs, parameters, buffers
and outputs: the minimum traffic of a kernel that reads and writes each once.

Counting runs on the ``meta`` device where the task allows it (no memory, no compute,
so GPU-sized configurations are cheap), and falls back to real CPU tensors otherwise.
"""

from __future__ import annotations

import atexit
import sys
import threading
from dataclasses import asdict, dataclass
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import flop_registry

from kerneltrials.tasks._instantiate import make_reference
from kerneltrials.tasks._spec import TaskSpec

# Ops that move or create data but compute nothing worth a FLOP note.
_NOT_COMPUTE = {"detach", "clone", "copy_", "_to_copy", "empty", "empty_like", "zeros",
                "zeros_like", "ones", "ones_like", "full", "full_like", "lift_fresh",
                "contiguous", "_unsafe_view", "new_empty", "new_zeros", "fill_", "zero_",
                "arange", "scalar_tensor", "empty_strided", "to", "alias"}


@dataclass(frozen=True)
class ConfigCost:
    """Size and work of one configuration."""

    params: int  # number of parameter elements
    flops: int | None  # counted FLOPs, None when the counter counts none of the ops
    flops_note: str | None  # ops the counter does not count, or why counting failed
    bytes: int  # inputs + parameters + buffers + outputs, in bytes
    arithmetic_intensity: float | None  # flops / bytes

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


#: Metadata queries the counter passes on uncounted (as torch's own counter does).
_METADATA = frozenset({"sym_is_contiguous", "is_contiguous", "is_strides_like_format",
                       "is_non_overlapping_and_dense", "size", "sym_size", "stride",
                       "sym_stride", "storage_offset", "sym_storage_offset", "numel",
                       "sym_numel", "dim", "layout"})


class _CostRecorder(TorchDispatchMode):
    """Counts FLOPs by torch's own formulas (``flop_registry``, as ``FlopCounterMode``
    does) and names the compute ops that have none, in one mode. ``FlopCounterMode``'s
    per-module attribution, which this does not need, fails on some models (its hooks
    raise "Expected gradient function to be set" on L3/perceiver_cross_attention)."""

    def __init__(self) -> None:
        super().__init__()
        self.flops = 0
        self.uncounted: set[str] = set()
        self._decomposing = 0  # the note names the ops the model called, not their parts

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        kwargs = kwargs or {}
        packet = func.overloadpacket
        if packet.__name__ in _METADATA:
            return NotImplemented
        if packet not in flop_registry:
            if not (func.is_view or packet.__name__ in _NOT_COMPUTE or self._decomposing):
                self.uncounted.add(f"aten.{packet.__name__}")
            if func is not torch.ops.prim.device.default:
                self._decomposing += 1
                try:
                    with self:  # a composite op counts by the ops it decomposes into
                        decomposed = func.decompose(*args, **kwargs)
                finally:
                    self._decomposing -= 1
                if decomposed is not NotImplemented:
                    return decomposed
        out = func(*args, **kwargs)
        if packet in flop_registry:
            self.flops += flop_registry[packet](*args, **kwargs, out_val=out)
        return out


def _tensor_bytes(values: Any) -> int:
    if isinstance(values, torch.Tensor):
        return values.numel() * values.element_size()
    if isinstance(values, list | tuple):
        return sum(_tensor_bytes(v) for v in values)
    if isinstance(values, dict):
        return sum(_tensor_bytes(v) for v in values.values())
    return 0


def _run_counted(task: TaskSpec, overrides: dict[str, Any], device: str) -> tuple[Any, ...]:
    with torch.device(device):
        model, inputs = make_reference(task, overrides, seed=0, device=device)
    recorder = _CostRecorder()
    with torch.no_grad(), recorder:
        output = model(*inputs)
    return model, inputs, output, recorder.flops, recorder.uncounted


def warm_cost_counter() -> None:
    """Import, in a background thread, what the first counted run would import on the
    spot: torch wraps the entry of a Python dispatch mode in ``_disable_dynamo``, whose
    first call imports ``torch._dynamo`` (about 1 s of a core). A caller about to wait on
    other processes (a check starting its workers) starts it there."""
    if "torch._dynamo" in sys.modules:
        return

    def load() -> None:
        import torch._dynamo  # noqa: F401 - the import is the point

    thread = threading.Thread(target=load, name="kerneltrials-warm-cost-counter", daemon=True)
    thread.start()
    # A process that ends first (a fast verdict) waits for the import rather than tearing
    # the interpreter down under it.
    atexit.register(thread.join, 30.0)


def config_cost(task: TaskSpec, overrides: dict[str, Any]) -> ConfigCost:
    """FLOPs and bytes of ``task`` under ``overrides`` (meta device first, then CPU).

    Raises:
        TaskError: the task cannot be built or run under this configuration.
    """
    try:
        model, inputs, output, flops, uncounted = _run_counted(task, overrides, "meta")
    except Exception:  # data-dependent ops cannot run on meta tensors
        model, inputs, output, flops, uncounted = _run_counted(task, overrides, "cpu")
    state = list(model.parameters()) + list(model.buffers())
    total_bytes = _tensor_bytes(inputs) + _tensor_bytes(state) + _tensor_bytes(output)
    note = f"not counted: {', '.join(sorted(uncounted))}" if uncounted else None
    counted = int(flops) if flops else None
    return ConfigCost(
        params=sum(p.numel() for p in model.parameters()),
        flops=counted,
        flops_note=note,
        bytes=total_bytes,
        arithmetic_intensity=(counted / total_bytes) if counted and total_bytes else None,
    )


def largest_floating_input(task: TaskSpec, overrides: dict[str, Any]) -> int | None:
    """Elements of the configuration's largest floating-point input, read on the ``meta``
    device (no memory, no compute); ``None`` where the task cannot draw its inputs there."""
    try:
        with torch.device("meta"):
            _, inputs = make_reference(task, overrides, seed=0, device="meta")
    except Exception:  # a task may raise anything on meta (data-dependent draws)
        return None
    return max((value.numel() for value in inputs
                if isinstance(value, torch.Tensor) and value.is_floating_point()), default=0)
