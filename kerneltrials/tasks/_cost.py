"""FLOP and byte counts of one task configuration (for slicing scores and speed of light).

FLOPs come from ``torch.utils.flop_counter.FlopCounterMode``, which has formulas only
for matmuls, convolutions and attention. Ops it does not count (elementwise, reductions,
norms, ...) are listed in ``flops_note``; when it counts nothing at all ``flops`` is
``None`` rather than a misleading 0. Bytes are the sizes of inputs, parameters, buffers
and outputs: the minimum traffic of a kernel that reads and writes each once.

Counting runs on the ``meta`` device where the task allows it (no memory, no compute,
so GPU-sized configurations are cheap), and falls back to real CPU tensors otherwise.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import FlopCounterMode, flop_registry

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


class _OpRecorder(TorchDispatchMode):
    """Records the names of the compute ops that run."""

    def __init__(self) -> None:
        super().__init__()
        self.ops: set[str] = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        packet = func.overloadpacket
        if packet not in flop_registry and not func.is_view:
            name = packet.__name__
            if name not in _NOT_COMPUTE:
                self.ops.add(f"aten.{name}")
        return func(*args, **(kwargs or {}))


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
    recorder = _OpRecorder()
    counter = FlopCounterMode(display=False)
    with torch.no_grad(), counter, recorder:
        output = model(*inputs)
    return model, inputs, output, counter.get_total_flops(), recorder.ops


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
