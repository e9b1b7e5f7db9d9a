"""How long a check's factor bank is, decided before either worker draws it.

A worker draws the bank (``worker/_fresh.py``) when it sets a configuration up, long
enough for that configuration's largest floating input, and drew it again whenever a later
configuration's input was larger: a check's hidden configurations come in random sizes,
so over this repository's 50 reference solutions the workers drew 1302M factors where
the largest configuration of each check needs 532M, each draw a serial generator pass
plus fresh pages. The parent sizes every configuration on the ``meta`` device (no memory,
no compute) and sends the largest length with each setup, so each worker draws the bank
once. The factors are the same either way: a longer draw from the same seed begins with
the shorter one. A configuration that cannot be sized on ``meta`` sends no length, and the
workers grow the bank as before: the length is a hint, never a correctness input.
"""

from __future__ import annotations

from collections.abc import Iterable

from kerneltrials.tasks import ShapeConfig, TaskSpec, largest_floating_input
from kerneltrials.verifier.harness._per_config import PerConfig
from kerneltrials.verifier.protocol import FRESH_OFFSETS

_largest = PerConfig(largest_floating_input)


def bank_length(task: TaskSpec, configs: Iterable[ShapeConfig]) -> int:
    """The bank length that serves every one of ``configs``: their largest floating input
    plus the offsets' range; 0 (no hint) where one of them cannot be sized."""
    largest = 0
    for config in configs:
        size = _largest(task, config.overrides)
        if size is None:
            return 0
        largest = max(largest, size)
    return largest + FRESH_OFFSETS if largest else 0
