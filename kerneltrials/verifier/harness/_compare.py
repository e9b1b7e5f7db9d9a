"""Compare a candidate's outputs with the reference's, in the parent process.

Pure functions over tensors loaded with ``weights_only=True``: nothing the candidate
wrote can execute here. Each failure is a ``code:detail`` reason string.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import torch

from kerneltrials.verifier.protocol import leaves, paired_leaves

TINY = 1e-12
#: Elements per block of a comparison: its temporaries stay in cache, and each op is
#: large enough to be split over the parent's threads (48 MB of float32 compared in
#: 13.3 ms with blocks of 64 Ki elements, 9.8 ms with 256 Ki, on this 2-core machine).
COMPARE_BLOCK = 1 << 18


@dataclass
class Comparison:
    """The outcome of comparing one call's outputs."""

    passed: bool = True
    max_abs_err: float = 0.0
    max_norm_err: float = 0.0
    reasons: list[str] = field(default_factory=list)

    def fail(self, reason: str) -> None:
        self.passed = False
        if reason not in self.reasons:
            self.reasons.append(reason)


def same_structure(reference: Any, candidate: Any) -> bool:
    pairs = paired_leaves(reference, candidate)
    return pairs is not None and all(
        isinstance(r, torch.Tensor) == isinstance(c, torch.Tensor) for r, c in pairs)


def _shape(tensor: torch.Tensor) -> str:
    return "(" + ",".join(str(d) for d in tensor.shape) + ")"


def compare_tensor(reference: torch.Tensor, candidate: torch.Tensor, atol: float, rtol: float,
                   result: Comparison, label: str = "output", scale: float = 0.0) -> None:
    """allclose AND normalised error <= rtol; NaN/Inf where the reference has none fails.
    The error is normalised by the reference's largest magnitude, or ``scale`` where that
    is larger (the whole output's, when these are a sample of its elements)."""
    if candidate.dtype != reference.dtype:
        result.fail(f"correctness:dtype[{label}]={candidate.dtype} expected {reference.dtype}")
        return
    if candidate.shape != reference.shape:
        result.fail(f"correctness:shape[{label}]={_shape(candidate)} expected {_shape(reference)}")
        return
    if reference.numel() == 0:
        return
    if reference.is_complex():  # compared as (real, imag) pairs
        reference, candidate = torch.view_as_real(reference), torch.view_as_real(candidate)
    if not reference.is_floating_point():
        if not torch.equal(reference, candidate):
            result.fail(f"correctness:values_differ[{label}]")
        return
    errors = _finite_errors(reference, candidate, rtol, atol)
    if math.isfinite(scale):
        errors.ref_max = max(errors.ref_max, scale)
    if reference.numel() > 1 and errors.candidate_constant and not is_constant(reference):
        result.fail(f"correctness:constant_output[{label}] (every element is "
                    f"{float(candidate.flatten()[0]):.3g}; the reference's are not all equal)")
        return
    if errors.finite:
        _record_error(result, label, errors.max_abs, errors.max_abs / max(errors.ref_max, TINY),
                      errors.excess <= atol, rtol)
    else:
        _compare_with_nonfinite(reference, candidate, atol, rtol, result, label, scale)


def _record_error(result: Comparison, label: str, max_abs: float, max_norm: float, close: bool,
                  rtol: float) -> None:
    result.max_abs_err = max(result.max_abs_err, max_abs)
    result.max_norm_err = max(result.max_norm_err, max_norm)
    if not close or max_norm > rtol:
        result.fail(f"correctness:max_abs_err={max_abs:.3g}[{label}] (normalised {max_norm:.3g}, "
                    f"tolerance {rtol:g})")


@dataclass
class _Errors:
    """Running maxima over the blocks of one comparison."""

    max_abs: float = 0.0  # max |out - ref|
    ref_max: float = 0.0  # max |ref|
    excess: float = -math.inf  # max(|out - ref| - rtol * |ref|): allclose iff <= atol
    finite: bool = True  # no NaN/Inf on either side, no overflowing difference
    out_low: float = math.inf  # the candidate's extremes (a constant output has low == high)
    out_high: float = -math.inf

    @property
    def candidate_constant(self) -> bool:
        return self.out_low == self.out_high and math.isfinite(self.out_low)


def _finite_errors(reference: torch.Tensor, candidate: torch.Tensor, rtol: float,
                   atol: float) -> _Errors:
    """Every figure of the common case in one sweep over cache-sized blocks.

    A whole-tensor pass per operation reads and writes tens of MB per pass on the larger
    tasks (the parent compares every checked call); per block the temporaries stay in
    the L2 cache, about 3x faster. allclose is |out - ref| <= atol + rtol * |ref|. float32
    arithmetic (float64 for float64 tasks) is exact enough for tolerances of 1e-4 and
    above. NaN/Inf on either side (or a difference that overflows) clears ``finite``:
    the block extremes propagate them, so no separate finiteness pass is needed.

    A block's largest |out - ref| and |ref| are read from the extremes of out - ref and of
    ref (|x| is exact, so they are the same numbers), and allclose's excess is computed
    only for a block whose largest difference exceeds ``atol``: elsewhere it is at most
    that difference, so such a block cannot decide ``excess <= atol``. A correct output's
    blocks take four passes instead of seven.
    """
    work = torch.float64 if reference.dtype == torch.float64 else torch.float32
    size = min(COMPARE_BLOCK, reference.numel())
    diff, ref_work = torch.empty(size, dtype=work), torch.empty(size, dtype=work)
    direct = reference.dtype == work and candidate.dtype == work  # no conversion copies
    errors = _Errors()
    for ref_block, out_block in paired_blocks(reference, candidate):
        count = out_block.numel()
        low, high = (float(value) for value in torch.aminmax(out_block))
        if math.isfinite(low) and math.isfinite(high):
            errors.out_low, errors.out_high = min(errors.out_low, low), max(errors.out_high, high)
        else:  # a NaN/Inf element: never a constant output (and min/max would drop NaN)
            errors.out_low = errors.out_high = math.nan
        if not errors.finite:
            continue  # only the candidate's extremes are still wanted
        block_diff = diff[:count]
        if direct:
            block_ref = ref_block
            torch.sub(out_block, ref_block, out=block_diff)
        else:
            block_ref = ref_work[:count].copy_(ref_block)
            block_diff.copy_(out_block).sub_(block_ref)
        diff_low, diff_high = (float(value) for value in torch.aminmax(block_diff))
        ref_low, ref_high = (float(value) for value in torch.aminmax(block_ref))
        if not all(math.isfinite(value) for value in (diff_low, diff_high, ref_low, ref_high)):
            errors.finite = False
            continue
        block_max_abs = max(abs(diff_low), abs(diff_high))
        errors.max_abs = max(errors.max_abs, block_max_abs)
        errors.ref_max = max(errors.ref_max, abs(ref_low), abs(ref_high))
        if block_max_abs > atol:
            ref_abs = torch.abs(block_ref, out=ref_work[:count])
            excess = block_diff.abs_().sub_(ref_abs, alpha=rtol)
            errors.excess = max(errors.excess, float(excess.max()))
    return errors


def identical(first: Any, second: Any) -> bool:
    """The same structure, dtypes, shapes and bits (NaN is never equal): a deterministic
    kernel's repeated call, settled in one pass where a comparison to tolerance sweeps
    each element several times. False only means "compare them"."""
    pairs = paired_leaves(first, second)
    if pairs is None:
        return False
    for a, b in pairs:
        if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
            if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)
                    and a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)):
                return False
        elif not (type(a) is type(b) and isinstance(a, _PLAIN) and a == b):
            return False
    return True


_PLAIN = (bool, int, float, complex, str, type(None))


def paired_blocks(first: torch.Tensor, second: torch.Tensor
                  ) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    """The same ``COMPARE_BLOCK`` elements of two tensors of one shape, flattened, in order."""
    first_flat, second_flat = first.reshape(-1), second.reshape(-1)
    for start in range(0, first_flat.numel(), COMPARE_BLOCK):
        end = start + COMPARE_BLOCK
        yield first_flat[start:end], second_flat[start:end]


def _compare_with_nonfinite(reference: torch.Tensor, candidate: torch.Tensor, atol: float,
                            rtol: float, result: Comparison, label: str, scale: float) -> None:
    """NaN/Inf in the candidate where the reference has none fails; elsewhere they must match."""
    ref64, out64 = reference.double(), candidate.double()
    ref_finite, out_finite = torch.isfinite(ref64), torch.isfinite(out64)
    if bool((ref_finite & ~out_finite).any()):
        result.fail(f"correctness:nan_or_inf[{label}]")
        return
    if not torch.equal(ref_finite, out_finite) or not torch.equal(
            ref64[~ref_finite].nan_to_num(), out64[~out_finite].nan_to_num()):
        result.fail(f"correctness:nonfinite_mismatch[{label}]")
        return
    diff = (out64 - ref64).abs()[ref_finite]
    max_abs = float(diff.max()) if diff.numel() else 0.0
    scale = scale if math.isfinite(scale) else 0.0
    if diff.numel():
        scale = max(scale, float(ref64[ref_finite].abs().max()))
    close = torch.allclose(out64, ref64, atol=atol, rtol=rtol, equal_nan=True)
    _record_error(result, label, max_abs, max_abs / max(scale, TINY), close, rtol)


def is_constant(tensor: torch.Tensor) -> bool:
    """All elements equal (and finite): a constant or all-zero output. One pass: the
    extremes are equal only when every element is, and NaN propagates into them."""
    if tensor.numel() < 2:
        return False
    low, high = torch.aminmax(tensor.detach().flatten())
    return bool(low == high) and math.isfinite(float(low))


def compare_outputs(reference: Any, candidate: Any, atol: float, rtol: float) -> Comparison:
    """Compare one call's outputs (a tensor or a nested tuple/list of tensors)."""
    result = Comparison()
    if not same_structure(reference, candidate):
        result.fail("correctness:output_structure (expected "
                    f"{_describe(reference)}, got {_describe(candidate)})")
        return result
    for index, (ref, out) in enumerate(zip(leaves(reference), leaves(candidate), strict=True)):
        if isinstance(ref, torch.Tensor):
            compare_tensor(ref, out, atol, rtol, result, label=f"output{index}")
    return result


def _describe(value: Any) -> str:
    if isinstance(value, list | tuple):
        return f"{type(value).__name__} of {len(value)}"
    return type(value).__name__


def find_mutated_inputs(before: list[Any], after: list[Any] | None) -> list[int]:
    """Indices of tensor inputs the candidate changed in place."""
    if after is None or len(after) != len(before):
        return list(range(len(before)))
    mutated = []
    for index, (old, new) in enumerate(zip(before, after, strict=True)):
        if isinstance(old, torch.Tensor) and not _same_values(old, new):
            mutated.append(index)
    return mutated


def _same_values(old: torch.Tensor, new: Any) -> bool:
    """Equal as the mutation check compares (NaN/Inf through ``nan_to_num``); one pass
    without copies unless the plain comparison fails."""
    if not isinstance(new, torch.Tensor) or old.shape != new.shape:
        return False
    return torch.equal(old, new) or torch.equal(old.nan_to_num(), new.nan_to_num())


def non_exact_types(structure: Any) -> list[str]:
    """Types in a worker's output description that are not exactly ``torch.Tensor``."""
    return [str(leaf.get("type")) for leaf in leaves(structure)
            if isinstance(leaf, dict) and not leaf.get("exact_tensor", False)]
