"""Fresh inputs for every timed call: a pool input scaled element by element by factors
that the parent picks for each call (docs/design/timing.md, "Fresh inputs per call").

A worker keeps a few input sets per configuration (the timing pool) and one bank of
random factors in [1 - span, 1], long enough for the largest configuration's inputs. A
timed call's floating-point inputs are its pool set multiplied element-wise by the bank's window starting at the
call's offset, which the parent draws with the operating system's randomness and sends
with the batch. So no two timed calls see the same inputs, none exists before its batch
starts, and there are too many (pool sets x ``OFFSETS``) to precompute. The reference
worker holds the same bank (same seed) and recomputes any call's output from its pool set
and offset when the parent checks it.

The factors keep every element's sign, zeros stay zero and magnitudes only shrink, so
inputs drawn in [0, 1) or [-1, 1] stay there; integer and boolean inputs (indices,
masks) are copied unchanged. A scale that varies element by element is not a symmetry
of any op worth computing (unlike one scalar factor, which a matmul would pass through).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from kerneltrials.verifier.protocol import FRESH_OFFSETS as OFFSETS

#: The largest relative change of one element, per dtype: far above the dtype's default
#: comparison tolerance (1e-4 for fp32, 1e-2 for half types), so an output remembered from
#: another call is wrong, and below 1, so signs survive.
SCALE_SPAN = {torch.float64: 1 / 16, torch.float32: 1 / 16,
              torch.float16: 1 / 4, torch.bfloat16: 1 / 4}
#: Offset step between the floating inputs of one call, so two inputs of the same shape
#: are not scaled alike.
INPUT_STRIDE = 104_729


@dataclass
class ScaleBank:
    """One configuration's factors: ``length`` uniform draws, scaled per dtype on use."""

    seed: int
    length: int
    device: str = "cpu"
    _by_dtype: dict[torch.dtype, torch.Tensor] = field(default_factory=dict, repr=False)

    def factors(self, dtype: torch.dtype, offset: int, numel: int) -> torch.Tensor:
        bank = self._by_dtype.get(dtype)
        if bank is None:
            generator = torch.Generator().manual_seed(self.seed)
            uniform = torch.rand(self.length, generator=generator)
            bank = (1 - SCALE_SPAN[dtype] * uniform).to(device=self.device, dtype=dtype)
            self._by_dtype[dtype] = bank
        return bank[offset % OFFSETS: offset % OFFSETS + numel]


def _scaled(value: Any) -> bool:
    return isinstance(value, torch.Tensor) and value.dtype in SCALE_SPAN


def make_bank(pool: Sequence[Sequence[Any]], seed: int, device: str,
              previous: ScaleBank | None = None, length_hint: int = 0) -> ScaleBank:
    """The bank for a configuration's pool: long enough for its largest floating input
    and at least ``length_hint`` (the parent's length for every configuration of the
    check, harness/_bank.py), its factors drawn now for every floating dtype the pool
    holds (at setup, which both workers do at once, rather than in the first timed batch).

    ``previous``, the bank of the configuration set up before, is kept when it has the same
    seed and is long enough: one bank serves every configuration of a check (the parent
    sends one seed), which saves drawing tens of MB of factors per configuration. Both
    workers see the same setups in the same order, so they keep and replace alike; and a
    longer bank of one seed begins with a shorter one's factors, so the hint changes no
    call's inputs."""
    scaled = [x for inputs in pool for x in inputs if _scaled(x)]
    largest = max((x.numel() for x in scaled), default=0)
    length = max(largest + OFFSETS, length_hint) if largest else 0
    if previous is not None and previous.seed == seed and previous.length >= length:
        bank = previous
    else:
        bank = ScaleBank(seed=seed, length=length, device=device)
    for dtype in {x.dtype for x in scaled}:
        bank.factors(dtype, 0, 0)
    return bank


def clone_inputs(inputs: Sequence[Any]) -> list[Any]:
    """A plain copy of every tensor input (correctness calls; timed calls without a bank)."""
    return [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]


def fresh_inputs(inputs: Sequence[Any], bank: ScaleBank | None, offset: int | None) -> list[Any]:
    """One timed call's inputs: floating tensors scaled by the bank at ``offset`` (a plain
    copy without an offset), everything else copied as it is."""
    if offset is None or bank is None or not bank.length:
        return clone_inputs(inputs)
    fresh: list[Any] = []
    for position, value in enumerate(inputs):
        if not isinstance(value, torch.Tensor):
            fresh.append(value)
        elif not _scaled(value):
            fresh.append(value.clone())
        else:
            window = bank.factors(value.dtype, offset + position * INPUT_STRIDE, value.numel())
            out = torch.empty_like(value)
            with torch.no_grad():  # a copy, as ``clone`` was: no autograd history
                fresh.append(torch.mul(value, window.view(value.shape), out=out))
    return fresh
