"""The work of one aten op, by kind, for the mixed policy's passthrough check.

The parent compares the work PyTorch did in a candidate's call with the reference's
(``harness/_work_share.py``); both records come from here. Two kinds, because they have
no common unit that a threshold could weigh fairly (an epilogue is a fraction of a
percent of a large GEMM's FLOPs, and still the candidate's real work):

- ``contraction``: FLOPs of the ops ``torch.utils.flop_counter`` has formulas for
  (matmuls, convolutions, attention);
- ``pointwise``: every other compute op, counted after decomposing it into PyTorch's own
  primitive ops (``torch._decomp``'s table: the reference implementations written in
  ``prims``), each primitive weighing the size of its largest operand. ``sigmoid`` weighs
  what ``1/(1+exp(-x))`` written out weighs, and ``add(y, x, alpha=a)`` what ``x*a + y``
  does: one fused PyTorch op does not count as less work than the ops it fuses.

A contraction with a bias (``addmm``, a convolution with ``bias``) also weighs its output's
size as pointwise work: the bias add the reference may write as a separate op.

Decomposing runs on meta tensors, once per distinct signature (op, shapes, dtypes, scalar
arguments) per process; the first one imports ``torch._dynamo`` (the decompositions are
wrapped in its ``disable``), which the workers' warm-up does before any call.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable
from typing import Any, cast

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten
from torch.utils.flop_counter import flop_registry

from kerneltrials.verifier.protocol import WORK_KINDS

#: aten ops that allocate, view, copy or describe: not compute, so the recorders skip them
#: (allowed even under ``strict``: ``_guards.is_compute``) and they weigh nothing here.
NOT_COMPUTE = frozenset({
    "empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like", "full",
    "full_like", "new_empty", "new_empty_strided", "new_zeros", "new_ones", "new_full",
    "scalar_tensor", "arange", "fill", "zero", "clone", "copy", "_to_copy", "to", "detach",
    "lift_fresh", "lift_fresh_copy", "contiguous", "_unsafe_view", "alias", "resize",
    "set", "as_strided", "_local_scalar_dense", "cat", "stack", "constant_pad_nd", "split",
    "split_with_sizes", "unbind", "t", "_reshape_alias", "slice", "select", "expand",
    "view", "reshape", "permute", "transpose", "squeeze", "unsqueeze", "flatten",
    "is_same_size", "_has_compatible_shallow_copy_type", "record_stream", "sym_size",
    "sym_stride", "sym_numel", "sym_storage_offset", "dim", "size", "stride", "numel",
    "is_contiguous", "_pin_memory", "is_pinned", "result_type", "item",
})

#: What weighs nothing in a decomposition: those, and the primitives that move, allocate
#: or convert.
_MOVES = NOT_COMPUTE | {"empty_permuted", "iota", "copy_to", "convert_element_type",
                        "broadcast_in_dim", "collapse_view", "split_dim", "device_put"}

#: Contractions whose first tensor operand (or ``bias``) is added to the product.
_WITH_BIAS = frozenset({"addmm", "addbmm", "baddbmm", "addmv", "addr", "convolution",
                        "_convolution", "cudnn_convolution_add_relu", "mkldnn_convolution"})


def base_name(func: Any) -> str:
    """An op's name without its in-place underscore: ``relu`` for ``relu_`` and ``relu``."""
    name: str = func.overloadpacket.__name__
    return name.rstrip("_") or name


def _largest(values: Any) -> int:
    leaves, _ = tree_flatten(values)
    return max((leaf.numel() for leaf in leaves if isinstance(leaf, torch.Tensor)), default=0)


def _bias_size(name: str, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> int:
    if name not in _WITH_BIAS:
        return 0
    if "convolution" in name:
        bias = args[2] if len(args) > 2 else kwargs.get("bias")
        if not isinstance(bias, torch.Tensor):
            return 0
    return _largest(out)


class _Counter(TorchDispatchMode):
    """Decomposes what it sees, down to ops without a decomposition, and adds up their
    work. It runs its decompositions under itself, so nested ops are seen too."""

    def __init__(self) -> None:
        super().__init__()
        self.work = dict.fromkeys(WORK_KINDS, 0.0)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        from torch._decomp import decomposition_table

        kwargs = kwargs or {}
        name = base_name(func)
        if func.overloadpacket in flop_registry:
            out = func(*args, **kwargs)
            self.work["contraction"] += float(flop_registry[func.overloadpacket](
                *args, **kwargs, out_val=out))
            self.work["pointwise"] += _bias_size(name, args, kwargs, out)
            return out
        if func.is_view or name in _MOVES:
            return func(*args, **kwargs)
        decomposition = decomposition_table.get(func)
        with self:
            result = (decomposition(*args, **kwargs) if decomposition is not None
                      else func.decompose(*args, **kwargs))
        if result is not NotImplemented:
            return result
        out = func(*args, **kwargs)
        self.work["pointwise"] += max(_largest((args, kwargs)), _largest(out))
        return out


def signature(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Hashable:
    """What the work of ``func(*args, **kwargs)`` depends on: the op, each tensor's shape
    and dtype, and the other arguments (those that are not hashable by their repr)."""

    def describe(value: Any) -> Any:
        if isinstance(value, torch.Tensor):
            strided = value.layout == torch.strided  # sparse and nested ones have no strides
            return ("T", tuple(value.shape), tuple(value.stride()) if strided else None,
                    str(value.dtype))
        if isinstance(value, list):
            return ("L", tuple(describe(item) for item in value))
        if isinstance(value, tuple):
            return ("U", tuple(describe(item) for item in value))
        if isinstance(value, torch.dtype | torch.memory_format | torch.layout):
            return ("Y", str(value).split(".")[-1])  # torch.float32 -> "float32"
        if isinstance(value, torch.device):
            return ("V",)  # rebuilt as the meta device, where the weighing runs
        if isinstance(value, int | float | bool | str | None):
            return value
        try:  # this runs inside the candidate's call: it must not fail there
            return repr(value)
        except Exception:
            return type(value).__name__

    return func, describe(args), tuple(sorted((k, describe(v)) for k, v in kwargs.items()))


def _rebuild(described: Any) -> Any:
    if isinstance(described, tuple) and len(described) == 4 and described[0] == "T":
        _, shape, stride, dtype = described
        if stride is None:
            raise ValueError("a tensor without strides is weighed as one primitive")
        return torch.empty_strided(shape, stride, dtype=getattr(torch, dtype.split(".")[-1]),
                                   device="meta")
    if isinstance(described, tuple) and len(described) == 2 and described[0] in ("L", "U"):
        items = [_rebuild(item) for item in described[1]]
        return items if described[0] == "L" else tuple(items)
    if isinstance(described, tuple) and len(described) == 2 and described[0] == "Y":
        return getattr(torch, described[1])
    if described == ("V",):
        return torch.device("meta")
    return described


_cache: dict[Hashable, dict[str, float]] = {}


def op_work(key: Hashable) -> dict[str, float]:
    """The work of one op call described by :func:`signature` (cached per process). An op
    that cannot run on meta tensors weighs its largest operand once, as a primitive."""
    known = _cache.get(key)
    if known is not None:
        return known
    func, described_args, described_kwargs = cast(tuple[Any, Any, Any], key)
    counter = _Counter()
    try:
        args = _rebuild(described_args)
        kwargs = {name: _rebuild(value) for name, value in described_kwargs}
        with torch.no_grad(), counter:
            func(*args, **kwargs)
        work = counter.work
    except Exception:  # no meta kernel or decomposition: one primitive's worth
        # (never an error: this runs after a candidate's call, which must not look failed)
        work = {"contraction": 0.0, "pointwise": float(_described_largest(key))}
    _cache[key] = work
    return work


def _described_largest(described: Any) -> int:
    """The largest tensor a signature describes, by its element count."""
    if isinstance(described, tuple) and len(described) == 4 and described[0] == "T":
        return math.prod(described[1])
    if isinstance(described, tuple | list):
        return max((_described_largest(item) for item in described), default=0)
    return 0


def total_work(calls: Counter[Hashable]) -> dict[str, float]:
    """The work of the op calls in ``calls`` (signature → how many times it ran)."""
    total = dict.fromkeys(WORK_KINDS, 0.0)
    for key, count in calls.items():
        for kind, amount in op_work(key).items():
            total[kind] += amount * count
    return total


def keep_most(most: dict[str, float], work: dict[str, float]) -> None:
    """Raise ``most`` to ``work`` in each kind (the heaviest call's record, kind by kind)."""
    for kind, amount in work.items():
        most[kind] = max(most.get(kind, 0.0), amount)


def warm_up() -> None:
    """Load the decomposition machinery (it imports dynamo) before any call is timed."""
    op_work(signature(torch.ops.aten.sigmoid.default, (torch.empty(1),), {}))
