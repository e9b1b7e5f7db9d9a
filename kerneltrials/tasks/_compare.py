"""Compare task outputs the way the verifier does (tolerances: docs/design/interfaces.md)."""

from __future__ import annotations

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


def tensors_close(a: torch.Tensor, b: torch.Tensor, atol: float, rtol: float) -> bool:
    """allclose AND normalised max error ≤ rtol, so near-zero outputs can't pass on atol."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if not a.is_floating_point():
        return bool(torch.equal(a, b))
    a64, b64 = a.detach().double(), b.detach().double()
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
        x64, y64 = x.detach().double(), y.detach().double()
        changed += int((~torch.isclose(x64, y64, atol=atol, rtol=rtol, equal_nan=True)).sum())
        total += x.numel()
    return changed / max(total, 1)
