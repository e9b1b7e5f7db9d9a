"""Compare task outputs the way the verifier does (tolerances: docs/design/interfaces.md)."""

from __future__ import annotations

import math
from typing import Any

import torch

TINY = 1e-12


def flatten_tensors(value: Any) -> list[torch.Tensor]:
    """Every tensor in a (possibly nested) output, in order."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, list | tuple):
        return [t for item in value for t in flatten_tensors(item)]
    if isinstance(value, dict):
        return [t for item in value.values() for t in flatten_tensors(item)]
    return []


def _finite_bounds(a64: torch.Tensor, b64: torch.Tensor, atol: float, rtol: float
                   ) -> tuple[torch.Tensor, torch.Tensor, float, float] | None:
    """``|a - b|``, allclose's bound ``atol + rtol * |b|``, and the maxima of ``|a - b|``
    and ``|b|``, when no element of either side is NaN or Inf (else ``None``).

    The common case in a few passes: ``torch.allclose``/``isclose`` also test equality
    and NaN on every element, about 15 whole-tensor passes, which were half of a built-in
    task's validation. The maxima propagate NaN and Inf, so they settle finiteness too.
    """
    diff = torch.sub(a64, b64).abs_()
    ref_abs = b64.abs()
    max_diff, ref_max = diff.max().item(), ref_abs.max().item()
    if not (math.isfinite(max_diff) and math.isfinite(ref_max)):
        return None
    return diff, ref_abs.mul_(rtol).add_(atol), max_diff, ref_max


def tensors_close(a: torch.Tensor, b: torch.Tensor, atol: float, rtol: float) -> bool:
    """allclose AND normalised max error ≤ rtol, so near-zero outputs can't pass on atol."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if not a.is_floating_point():
        return bool(torch.equal(a, b))
    if a.numel() == 0:
        return True
    a64, b64 = a.detach().double(), b.detach().double()
    bounds = _finite_bounds(a64, b64, atol, rtol)
    if bounds is not None:
        diff, bound, max_diff, ref_max = bounds
        return bool(torch.le(diff, bound).all()) and max_diff / max(ref_max, TINY) <= rtol
    if not torch.allclose(a64, b64, atol=atol, rtol=rtol, equal_nan=True):
        return False
    finite = torch.isfinite(b64)
    if not finite.any():
        return True
    scale = max(b64[finite].abs().max().item(), TINY)
    error = (a64 - b64)[finite].abs().max().item()
    return error / scale <= rtol


def outputs_close(a: Any, b: Any, atol: float, rtol: float) -> bool:
    """True when every tensor of two outputs agrees within tolerance."""
    left, right = flatten_tensors(a), flatten_tensors(b)
    return len(left) == len(right) and all(
        tensors_close(x, y, atol, rtol) for x, y in zip(left, right, strict=True))


def changed_fraction(a: Any, b: Any, atol: float, rtol: float) -> float:
    """Fraction of output elements that differ beyond tolerance (1.0 on shape change)."""
    left, right = flatten_tensors(a), flatten_tensors(b)
    if len(left) != len(right) or any(x.shape != y.shape for x, y in zip(left, right, strict=True)):
        return 1.0
    changed = total = 0
    for x, y in zip(left, right, strict=True):
        total += x.numel()
        if x.numel() == 0:
            continue
        x64, y64 = x.detach().double(), y.detach().double()
        bounds = _finite_bounds(x64, y64, atol, rtol)
        if bounds is not None:
            changed += int(torch.gt(bounds[0], bounds[1]).sum())
        else:
            changed += int((~torch.isclose(x64, y64, atol=atol, rtol=rtol, equal_nan=True)).sum())
    return changed / max(total, 1)
