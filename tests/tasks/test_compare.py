"""The task validator's comparisons agree with their definition in ``torch.isclose`` terms
on every kind of element (near the bound, NaN, Inf, overflowing differences, empty), and
its output-value checks flag what they name on every kind of output tensor."""

from __future__ import annotations

import math
from typing import Any

import pytest
import torch

from kerneltrials.tasks import load_task
from kerneltrials.tasks._compare import TINY, changed_fraction, tensors_close
from kerneltrials.tasks._degenerate import check_constant_output, check_output_values, make_probe

ATOL, RTOL = 1e-4, 1e-3


def _close_by_definition(a: torch.Tensor, b: torch.Tensor) -> bool:
    a64, b64 = a.double(), b.double()
    if not torch.allclose(a64, b64, atol=ATOL, rtol=RTOL, equal_nan=True):
        return False
    finite = torch.isfinite(b64)
    if not finite.any():
        return True
    scale = max(b64[finite].abs().max().item(), TINY)
    return (a64 - b64)[finite].abs().max().item() / scale <= RTOL


def _changed_by_definition(a: torch.Tensor, b: torch.Tensor) -> float:
    close = torch.isclose(a.double(), b.double(), atol=ATOL, rtol=RTOL, equal_nan=True)
    return float((~close).sum()) / max(a.numel(), 1)


def _pairs() -> list[tuple[str, torch.Tensor, torch.Tensor]]:
    generator = torch.Generator().manual_seed(7)
    base = torch.randn(4096, generator=generator)
    bound = ATOL + RTOL * base.abs()
    pairs = [("equal", base, base.clone()),
             ("inside the bound", base + 0.9 * bound, base),
             ("one element past the bound", base.clone().index_put_(
                 (torch.tensor([17]),), base[17] + 1.5 * bound[17]), base),
             ("half past the bound", base + torch.where(torch.arange(4096) % 2 == 0,
                                                        2 * bound, 0 * bound), base),
             ("near zero on atol only", torch.full((64,), 5e-5), torch.zeros(64)),
             ("empty", torch.empty(0), torch.empty(0))]
    for name, value in (("nan", math.nan), ("inf", math.inf), ("-inf", -math.inf)):
        with_value = base.clone()
        with_value[3] = value
        pairs += [(f"{name} on both sides", with_value, with_value.clone()),
                  (f"{name} in the candidate only", with_value, base),
                  (f"{name} in the reference only", base, with_value)]
    huge = torch.full((8,), 1e308, dtype=torch.float64)
    pairs += [("difference overflows", huge, -huge),
              ("float16", base.half(), (base + 0.5 * bound).half()),
              ("float64", base.double() + 1e-9, base.double())]
    return pairs


@pytest.mark.parametrize(("name", "candidate", "reference"), _pairs(),
                         ids=[name for name, _, _ in _pairs()])
def test_the_fast_comparison_matches_its_definition(name, candidate, reference):
    assert tensors_close(candidate, reference, ATOL, RTOL) == \
        _close_by_definition(candidate, reference), name
    assert changed_fraction(candidate, reference, ATOL, RTOL) == \
        pytest.approx(_changed_by_definition(candidate, reference)), name


def test_the_cases_cover_both_answers():
    answers = {tensors_close(c, r, ATOL, RTOL) for _, c, r in _pairs()}
    assert answers == {True, False}
    assert changed_fraction(*_pairs()[3][1:], ATOL, RTOL) == pytest.approx(0.5)


def _probe_with(output: object, reseeded_output: object | None = None) -> tuple[Any, Any]:
    task = load_task("L1/relu")
    probe = make_probe(task, {}, seed=0)
    probe.output = output
    other = make_probe(task, {}, seed=1)
    other.output = output if reseeded_output is None else reseeded_output
    return probe, other


@pytest.mark.parametrize(("output", "code"), [
    (torch.tensor([1.0, float("nan"), 2.0]), "degenerate:nonfinite_output"),
    (torch.tensor([1.0, float("-inf")]), "degenerate:nonfinite_output"),
    (torch.zeros(4), "degenerate:near_zero_output"),
    (torch.zeros(0), "degenerate:near_zero_output"),
    ((), "degenerate:no_tensor_output"),
    ((torch.zeros(3, dtype=torch.bool), torch.zeros(2)), "degenerate:near_zero_output"),
])
def test_output_values_flags_degenerate_outputs(output: object, code: str) -> None:
    probe, _ = _probe_with(output)
    assert [p.code for p in check_output_values(probe)] == [code]


@pytest.mark.parametrize("output", [
    torch.tensor([0.0, 0.5]), torch.tensor([-3.0, 0.0]), torch.tensor([2, 0], dtype=torch.int64),
    (torch.zeros(2), torch.tensor([True, False])),
])
def test_output_values_passes_an_output_with_one_large_element(output: object) -> None:
    probe, _ = _probe_with(output)
    assert check_output_values(probe) == []


def test_constant_output_is_flagged_across_both_seeds_and_every_tensor() -> None:
    probe, other = _probe_with(torch.full((8,), 3.0), torch.full((4,), 3.0))
    assert [p.code for p in check_constant_output(probe, other)] == ["degenerate:constant_output"]
    # One differing element, in the second seed's second tensor, is enough to pass.
    probe, other = _probe_with(torch.full((8,), 3.0), (torch.full((4,), 3.0), torch.tensor([4.0])))
    assert check_constant_output(probe, other) == []
    # A NaN gives no spread to judge: not reported as constant (as before the fast path).
    probe, other = _probe_with(torch.full((8,), 3.0), torch.tensor([3.0, float("nan")]))
    assert check_constant_output(probe, other) == []
