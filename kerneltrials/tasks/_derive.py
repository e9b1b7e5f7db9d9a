"""Hidden configurations for task files without a ``TASK`` dict (KernelBench's format).

Such a file says nothing about which of its module constants are sizes or which values
they may take, so a hidden configuration is derived: every integer constant of at least
``MIN_SIZE`` (a size: batch, channels, length) is multiplied by a seeded factor in
[0.7, 1.3]; smaller ones (axes, kernel sizes, strides, layer counts) keep their value.
Whatever the reference enforces (divisibility, equal dimensions) is respected by building
the reference on the ``meta`` device under the drawn values and running it — no memory,
no compute — and drawing again when it fails (later draws keep each size a multiple of the
power of two dividing its own value, and scale constants of equal value alike). A file
whose own reference cannot run on ``meta`` (data-dependent ops) gets no derived
configuration, since nothing could confirm one. See docs/design/interfaces.md, "Hidden
configurations".
"""

from __future__ import annotations

import random
from typing import Any

import torch

from kerneltrials.tasks._instantiate import make_reference
from kerneltrials.tasks._spec import HIDDEN_FACTOR_RANGE, TaskSpec

#: Integer constants below this are no sizes (axes, kernel sizes, strides): kept as they are.
MIN_SIZE = 8
#: Draws tried before a file goes without a derived configuration; the second half keeps
#: each size a multiple of the power of two that divides its own value (up to ``ALIGN``)
#: and equal sizes equal, which is what divisibility and shape rules usually ask.
MAX_DRAWS = 12
ALIGN = 64


def size_constants(task: TaskSpec) -> dict[str, int]:
    """The file's module-level integer constants that look like sizes."""
    return {name: value for name, value in sorted(task.constants.items())
            if isinstance(value, int) and not isinstance(value, bool) and value >= MIN_SIZE}


def runs_on_meta(task: TaskSpec, overrides: dict[str, Any]) -> bool:
    """Whether the reference builds and runs under ``overrides`` on the meta device."""
    try:
        with torch.device("meta"):
            model, inputs = make_reference(task, overrides, seed=0, device="meta")
        with torch.no_grad():
            model(*inputs)
    except Exception:  # a task may raise anything on a bad draw (TaskError included)
        return False
    return True


def _scaled(value: int, factor: float, aligned: bool) -> int:
    if not aligned:
        return max(1, round(value * factor))
    step = min(value & -value, ALIGN)  # the largest power of two dividing value
    return max(step, round(value * factor / step) * step)


def derive_hidden_configs(task: TaskSpec, profile: str, seed: int,
                          public: dict[str, int] | None = None) -> list[dict[str, Any]]:
    """One hidden configuration around the file's own constants, or around ``public``
    where the profile's public configuration overrides them (the derived ``cpu`` sizes);
    empty when the file has no size constant or its reference cannot be checked on
    ``meta``; deterministic in ``seed``."""
    sizes = {**size_constants(task), **(public or {})}
    if not sizes or not runs_on_meta(task, public or {}):
        return []
    for draw in range(MAX_DRAWS):
        # A string seed hashes stably across processes and Python runs.
        rng = random.Random(f"{seed}:{task.id}:{profile}:derived:{draw}")
        aligned = draw >= MAX_DRAWS // 2
        # Later draws also scale equal constants alike (square shapes, residual widths).
        per_value = {value: rng.uniform(*HIDDEN_FACTOR_RANGE)
                     for value in sorted(set(sizes.values()))}
        config = {name: _scaled(value, per_value[value] if aligned
                                else rng.uniform(*HIDDEN_FACTOR_RANGE), aligned)
                  for name, value in sizes.items()}
        if config != sizes and runs_on_meta(task, config):
            return [config]
    return []
