"""Identity snapshots of the functions and global state a candidate could tamper with.

Taken in the candidate worker before the candidate is imported and compared after every
call: a patched timer, synchronisation, comparison, RNG or harness function, a changed
backend flag, thread count or default dtype, or new OS threads become ``integrity:*``
reasons (docs/design/anticheat.md). Identities are ``id()`` of the bound objects.
"""

from __future__ import annotations

import builtins
import time
from collections.abc import Callable, Mapping
from typing import Any

import torch
import torch.utils.cpp_extension  # noqa: F401

from kerneltrials.verifier.worker import _guards, _timing
from kerneltrials.verifier.worker._guards import os_thread_count

#: Reason code per snapshot category.
CATEGORY_REASON = {"timer": "integrity:timer_patched", "sync": "integrity:sync_patched",
                   "compare": "integrity:comparison_patched", "rng": "integrity:rng_patched",
                   "harness": "integrity:harness_patched", "state": "integrity:global_state",
                   "builtin": "integrity:builtin_patched"}


def _getter(owner: Any, name: str) -> Callable[[], Any]:
    """Reads ``owner.name`` now (a patch rebinds the attribute, not our reference)."""
    return lambda: getattr(owner, name, None)


def _watched(handlers: Mapping[str, Any]) -> dict[str, Callable[[], Any]]:
    """Getters of everything watched, keyed ``category:name`` (``handlers``: the
    worker's handler table, whose entries are watched too)."""
    watched: dict[str, Callable[[], Any]] = {}
    for name in ("perf_counter", "perf_counter_ns", "time", "time_ns", "monotonic",
                 "monotonic_ns", "process_time", "thread_time"):
        watched[f"timer:time.{name}"] = _getter(time, name)
    watched["sync:torch.cuda.synchronize"] = lambda: torch.cuda.synchronize
    watched["sync:torch.cuda.Event"] = lambda: torch.cuda.Event
    watched["sync:torch.cuda.Event.elapsed_time"] = lambda: torch.cuda.Event.elapsed_time
    for name in ("allclose", "equal", "isclose", "isfinite", "isnan", "save", "load"):
        watched[f"compare:torch.{name}"] = _getter(torch, name)
    for name in ("clone", "copy_", "to", "cpu", "detach", "__eq__", "double", "nan_to_num"):
        watched[f"compare:torch.Tensor.{name}"] = _getter(torch.Tensor, name)
    watched["compare:torch.nn.Module.__call__"] = lambda: torch.nn.Module.__call__
    watched["compare:torch.nn.Module._call_impl"] = lambda: torch.nn.Module._call_impl
    for name in ("manual_seed", "randn", "rand", "randint", "normal", "get_rng_state"):
        watched[f"rng:torch.{name}"] = _getter(torch, name)
    for name in ("isinstance", "type", "len", "id", "getattr", "print"):
        watched[f"builtin:{name}"] = _getter(builtins, name)
    for name in list(handlers):
        watched[f"harness:_dispatch.HANDLERS[{name}]"] = _handler_getter(handlers, name)
    watched["harness:_timing.time_calls"] = lambda: _timing.time_calls
    # The inputs of every timed call: the name the timing loop looks up in its module.
    watched["harness:_timing.fresh_inputs"] = lambda: _timing.fresh_inputs
    watched["harness:KernelTracker.call"] = lambda: _guards.KernelTracker.call
    watched["harness:ComputeRecorder.__torch_dispatch__"] = (
        lambda: _guards.ComputeRecorder.__torch_dispatch__)
    return watched


def _handler_getter(handlers: Mapping[str, Any], name: str) -> Callable[[], Any]:
    return lambda: handlers.get(name)


def _state() -> dict[str, Any]:
    backends = torch.backends
    return {
        "state:torch.backends.cuda.matmul.allow_tf32": backends.cuda.matmul.allow_tf32,
        "state:torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction":
            backends.cuda.matmul.allow_fp16_reduced_precision_reduction,
        "state:torch.backends.cudnn.allow_tf32": backends.cudnn.allow_tf32,
        "state:torch.backends.cudnn.benchmark": backends.cudnn.benchmark,
        "state:torch.backends.cudnn.deterministic": backends.cudnn.deterministic,
        "state:torch.backends.cudnn.enabled": backends.cudnn.enabled,
        "state:torch.backends.mkldnn.enabled": backends.mkldnn.enabled,
        "state:torch.get_float32_matmul_precision": torch.get_float32_matmul_precision(),
        "state:torch.get_num_threads": torch.get_num_threads(),
        "state:torch.get_num_interop_threads": torch.get_num_interop_threads(),
        "state:torch.get_default_dtype": str(torch.get_default_dtype()),
        "state:torch.are_deterministic_algorithms_enabled":
            torch.are_deterministic_algorithms_enabled(),
    }


def load_watched_modules() -> None:
    """Import what rebinds watched functions when imported (dynamo rebinds
    ``torch.manual_seed``): a candidate importing it later must not look like tampering."""
    import torch._dynamo  # noqa: F401


def integrity_snapshot(handlers: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Identities of the watched functions (``handlers``: the worker's handler table) and
    the values of the watched state."""
    load_watched_modules()  # a no-op after the worker's warm-up
    watched = _watched(handlers or {})
    snapshot: dict[str, Any] = {key: id(get()) for key, get in watched.items()}
    snapshot.update(_state())
    return snapshot


def integrity_changes(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """One ``integrity:…`` reason per watched item that differs."""
    reasons = []
    for key, value in before.items():
        if after.get(key) != value:
            category, name = key.split(":", 1)
            detail = f"{name}={after.get(key)!r} (was {value!r})" if category == "state" else name
            reasons.append(f"{CATEGORY_REASON[category]}:{detail}")
    return reasons


class ThreadWatch:
    """New OS threads that outlive a call (a background worker doing the real work, or
    one hobbling the machine). The first kernel call may start an OpenMP pool."""

    def __init__(self, pool_allowance: int) -> None:
        self.baseline = os_thread_count()
        self.allowance = pool_allowance
        self.first = True

    def check(self) -> list[str]:
        count = os_thread_count()
        limit = self.baseline + (self.allowance if self.first else 0)
        self.first = False
        if count > limit:
            return [f"integrity:threads_spawned:{count} OS threads after a call, at most {limit} expected"]
        self.baseline = max(self.baseline, count)
        return []
