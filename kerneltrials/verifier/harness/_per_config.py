"""A value of a task configuration computed once in this process, not at each use.

A check reads some of them several times (a configuration's speed-of-light bound twice,
the factor bank's length at each setup), and a run checks many candidates of one task.
Keyed by the task's source and the configuration's overrides; the oldest is dropped past
a bound, so a long-lived process that sees many tasks keeps a few hundred.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from kerneltrials.tasks import TaskSpec

T = TypeVar("T")


class PerConfig(Generic[T]):
    """``compute(task, overrides)``, remembered per (task source, overrides)."""

    def __init__(self, compute: Callable[[TaskSpec, dict[str, Any]], T], kept: int = 512) -> None:
        self._compute = compute
        self._kept = kept
        self._values: dict[tuple[str, str], T] = {}

    def __call__(self, task: TaskSpec, overrides: dict[str, Any]) -> T:
        key = (hashlib.sha256(task.source.encode()).hexdigest(),
               json.dumps(overrides, sort_keys=True, default=str))
        if key not in self._values:
            value = self._compute(task, overrides)
            if len(self._values) >= self._kept:
                self._values.pop(next(iter(self._values)))
            self._values[key] = value
        return self._values[key]
