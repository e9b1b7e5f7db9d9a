"""How long one eager call of a task's reference takes: what ``tasks validate`` checks
against the profile's band, and what a derived cpu profile aims into (``_cpu_profile``)."""

from __future__ import annotations

import time
from typing import Any

import torch

_TIMING_REPEATS = 5
_TIMING_BUDGET_MS = 300.0  # keep measuring small configurations up to 15 calls


def _sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def measure_runtime_ms(model: torch.nn.Module, inputs: list[Any], device: str) -> float:
    """Best eager runtime of ``model(*inputs)`` over a few calls after one warm-up.

    The minimum, not the median: on a shared machine the other processes only ever add
    time, and the band check is about the task's size, not the machine's load.
    """
    times: list[float] = []
    with torch.no_grad():
        model(*inputs)
        while len(times) < _TIMING_REPEATS or (len(times) < 3 * _TIMING_REPEATS
                                                and sum(times) < _TIMING_BUDGET_MS):
            _sync(device)
            start = time.perf_counter()
            model(*inputs)
            _sync(device)
            times.append((time.perf_counter() - start) * 1e3)
    return min(times)
