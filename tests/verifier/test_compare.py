"""The parent-side output comparison, on hand-made tensors (no worker, no build)."""

from __future__ import annotations

import pytest
import torch

from kerneltrials.verifier.harness._compare import (
    COMPARE_BLOCK,
    Comparison,
    compare_outputs,
    compare_tensor,
    find_mutated_inputs,
    identical,
    is_constant,
)

pytestmark = pytest.mark.timeout(30)
ATOL = RTOL = 1e-2


def _compare(reference: torch.Tensor, candidate: torch.Tensor) -> Comparison:
    result = Comparison()
    compare_tensor(reference, candidate, ATOL, RTOL, result)
    return result


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_within_tolerance_passes_and_just_outside_fails(dtype: torch.dtype) -> None:
    reference = torch.linspace(-4, 4, 1001, dtype=torch.float64)
    inside = reference + 0.5 * (ATOL + RTOL * reference.abs())
    outside = reference.clone()
    outside[500] += 3 * (ATOL + RTOL * abs(float(reference[500])))
    assert _compare(reference.to(dtype), inside.to(dtype)).passed
    failed = _compare(reference.to(dtype), outside.to(dtype))
    assert not failed.passed and failed.reasons[0].startswith("correctness:max_abs_err=")


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_outputs_are_compared_in_float32(dtype: torch.dtype) -> None:
    reference = torch.randn(256).to(dtype)
    assert _compare(reference, reference.clone()).passed
    wrong = reference.clone()
    wrong[0] += 1
    assert not _compare(reference, wrong).passed


def test_the_inputs_are_never_modified() -> None:
    reference, candidate = torch.randn(64), torch.randn(64)
    kept = (reference.clone(), candidate.clone())
    _compare(reference, candidate)
    assert torch.equal(reference, kept[0]) and torch.equal(candidate, kept[1])


def test_nan_or_inf_where_the_reference_is_finite_fails() -> None:
    reference = torch.randn(100)
    for bad in (float("nan"), float("inf"), float("-inf")):
        candidate = reference.clone()
        candidate[7] = bad
        assert _compare(reference, candidate).reasons == ["correctness:nan_or_inf[output]"]


def test_nonfinite_values_must_match_the_references() -> None:
    reference = torch.randn(100)
    reference[[3, 9]] = torch.tensor([float("nan"), float("inf")])
    assert _compare(reference, reference.clone()).passed
    flipped = reference.clone()
    flipped[9] = float("-inf")
    assert _compare(reference, flipped).reasons == ["correctness:nonfinite_mismatch[output]"]
    made_finite = reference.clone()
    made_finite[3] = 0.0
    assert _compare(reference, made_finite).reasons == ["correctness:nonfinite_mismatch[output]"]


def test_a_difference_that_overflows_float32_still_fails_with_its_size() -> None:
    reference = torch.full((4,), 3e38)
    result = _compare(reference, -reference)
    assert not result.passed and result.max_abs_err == pytest.approx(6e38, rel=1e-3)


def test_a_constant_output_fails_unless_the_reference_is_constant() -> None:
    reference = torch.randn(50)
    result = _compare(reference, torch.zeros(50))
    assert result.reasons[0].startswith("correctness:constant_output[output]")
    assert _compare(torch.zeros(50), torch.zeros(50)).passed


def test_is_constant_needs_equal_finite_elements() -> None:
    assert is_constant(torch.full((3, 3), 2.5))
    assert not is_constant(torch.tensor([1.0, 1.0, 1.0000001]))
    assert not is_constant(torch.full((4,), float("inf")))
    assert not is_constant(torch.tensor([float("nan"), float("nan")]))
    assert not is_constant(torch.tensor([5.0]))


def test_complex_outputs_compare_both_parts() -> None:
    reference = torch.randn(20, dtype=torch.complex64)
    candidate = reference.clone()
    assert _compare(reference, candidate).passed
    candidate[4] += 1j
    assert not _compare(reference, candidate).passed


def test_dtype_shape_integers_and_structure() -> None:
    reference = torch.arange(6)
    assert _compare(reference, reference.clone()).passed
    assert _compare(reference, reference + (reference == 5)).reasons == [
        "correctness:values_differ[output]"]
    assert _compare(reference.float(), reference.double()).reasons[0].startswith(
        "correctness:dtype[output]")
    assert _compare(reference.float(), reference.float().view(2, 3)).reasons[0].startswith(
        "correctness:shape[output]=(2,3)")
    result = compare_outputs((reference.float(),), [reference.float(), reference.float()], ATOL, RTOL)
    assert result.reasons[0].startswith("correctness:output_structure")


def _whole_tensor_figures(reference: torch.Tensor, candidate: torch.Tensor) -> tuple[float, float]:
    """The comparison's figures computed in float64 over the whole tensor at once."""
    diff = (candidate.double() - reference.double()).abs()
    return float(diff.max()), float(diff.max() / reference.double().abs().max())


@pytest.mark.parametrize("shape", [(3, COMPARE_BLOCK + 17), (2 * COMPARE_BLOCK + 5,), (7, 3)])
def test_the_blocked_sweep_finds_the_worst_element_in_any_block(shape: tuple[int, ...]) -> None:
    generator = torch.Generator().manual_seed(3)
    reference = torch.randn(shape, generator=generator)
    reference.view(-1)[-2] = 40.0  # the largest reference value, in the last block
    candidate = reference + 1e-4 * torch.randn(shape, generator=generator)
    candidate.view(-1)[-1] += 0.5  # the worst error sits in the last, partial block
    result = _compare(reference, candidate)
    max_abs, max_norm = _whole_tensor_figures(reference, candidate)
    assert result.max_abs_err == pytest.approx(max_abs, rel=1e-5)
    assert result.max_norm_err == pytest.approx(max_norm, rel=1e-5)
    assert not result.passed  # 0.5 > ATOL + RTOL * |ref| there
    candidate.view(-1)[-1] -= 0.5
    assert _compare(reference, candidate).passed


def _plain_decision(reference: torch.Tensor, candidate: torch.Tensor) -> tuple[bool, float, float]:
    """The definition, whole-tensor, in the comparison's working precision: allclose
    (|out - ref| <= atol + rtol * |ref| everywhere) and the normalised error <= rtol."""
    work = torch.float64 if reference.dtype == torch.float64 else torch.float32
    ref, out = reference.to(work).reshape(-1), candidate.to(work).reshape(-1)
    diff = (out - ref).abs()
    max_abs, ref_max = float(diff.max()), float(ref.abs().max())
    close = float((diff - RTOL * ref.abs()).max()) <= ATOL
    return close and max_abs / max(ref_max, 1e-12) <= RTOL, max_abs, max_abs / max(ref_max, 1e-12)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16])
@pytest.mark.parametrize("seed", range(8))
def test_a_block_within_atol_skips_allclose_and_decides_as_the_definition(
        dtype: torch.dtype, seed: int) -> None:
    # Blocks whose largest difference is within atol skip allclose's excess (it is at most
    # that difference); the decision and both figures must stay the definition's. Errors
    # are put near each bound, in one block or several, on either sign.
    generator = torch.Generator().manual_seed(seed)
    reference = (torch.randn(3 * COMPARE_BLOCK + 11, generator=generator) * 4).to(dtype)
    candidate = reference.clone()
    for _ in range(int(torch.randint(1, 4, (1,), generator=generator))):
        index = int(torch.randint(0, reference.numel(), (1,), generator=generator))
        ref_value = abs(float(reference[index]))
        bound = ATOL + RTOL * ref_value
        factor = float(torch.empty(1).uniform_(0.5, 1.5, generator=generator))
        sign = 1 if int(torch.randint(0, 2, (1,), generator=generator)) else -1
        candidate[index] = float(reference[index]) + sign * factor * bound
    result = _compare(reference, candidate)
    passed, max_abs, max_norm = _plain_decision(reference, candidate)
    assert result.passed == passed, (result.reasons, max_abs, max_norm)
    assert result.max_abs_err == max_abs and result.max_norm_err == max_norm


def test_a_nan_in_a_late_block_fails_and_a_blockwise_constant_output_is_no_constant() -> None:
    reference = torch.randn(3 * COMPARE_BLOCK)
    candidate = reference.clone()
    candidate[-3] = float("nan")
    assert _compare(reference, candidate).reasons == ["correctness:nan_or_inf[output]"]
    # Each block constant, the blocks different: not a constant output, just wrong.
    steps = torch.arange(3).repeat_interleave(COMPARE_BLOCK).float()
    assert _compare(reference, steps).reasons[0].startswith("correctness:max_abs_err=")
    constant = _compare(reference, torch.full_like(reference, 2.0))
    assert constant.reasons[0].startswith("correctness:constant_output[output]")
    nan_then_constant = torch.full_like(reference, 2.0)
    nan_then_constant[0] = float("nan")  # a NaN in the first block: no constant output
    assert _compare(reference, nan_then_constant).reasons == ["correctness:nan_or_inf[output]"]


def test_a_poisoned_replay_counts_as_changed_only_where_it_differs_in_some_block() -> None:
    from kerneltrials.verifier.harness._judge import _changed

    clean = torch.randn(3 * COMPARE_BLOCK)
    clean[5] = float("nan")  # NaN in both at the same place is no change
    same = clean.clone()
    assert not _changed(clean, same)
    late = clean.clone()
    late[-1] += 1.0  # the only difference is in the last block
    assert _changed(clean, late)
    assert _changed((clean, clean), (clean.clone(), late))  # any leaf of a nested output
    assert _changed(clean, clean[:-1])  # another shape
    integers = torch.arange(3 * COMPARE_BLOCK)
    shifted = integers.clone()
    shifted[-2] = -1
    assert _changed(integers, shifted) and not _changed(integers, integers.clone())


def test_input_mutation_is_found_in_any_block_and_nan_inputs_left_alone_are_unchanged() -> None:
    inputs = [torch.randn(2 * COMPARE_BLOCK), torch.randn(10), 3]
    inputs[0][1] = float("nan")
    after = [inputs[0].clone(), inputs[1].clone(), 3]
    assert find_mutated_inputs(inputs, after) == []
    after[0][-1] = 0.0
    assert find_mutated_inputs(inputs, after) == [0]
    assert find_mutated_inputs(inputs, [inputs[0].clone(), inputs[1][:5], 3]) == [1]


def test_identical_is_bitwise_and_anything_else_is_left_to_the_comparison() -> None:
    # The repeated call is settled by one pass only when nothing could differ.
    x = torch.randn(2 * COMPARE_BLOCK + 3)
    assert identical((x, 3, None), (x.clone(), 3, None))
    nudged = x.clone()
    nudged[-1] = torch.nextafter(nudged[-1], torch.tensor(10.0))
    assert not identical(x, nudged)  # one ulp in the last block
    nan = x.clone()
    nan[0] = float("nan")
    assert not identical(nan, nan.clone())  # NaN never equal: compared to tolerance
    assert not identical(x, x.double()) and not identical(x, x.view(1, -1))
    assert not identical((x, 3), (x, 3.0)) and not identical((x, 3), [x, 3, 4])
    assert not identical([x], [x.tolist()])  # a tensor against anything else
