"""The mixed policy weighs work, not names: how much of the reference's work PyTorch did.

Both records come from the same weights (``worker/_op_work.py``): per kind (contraction
FLOPs; pointwise work of PyTorch's primitive ops), the reference's work on a
configuration and, for the candidate, the most PyTorch did in any one of its calls.
The candidate's **own share** of a kind is the part of the reference's work of that kind
that PyTorch did not do: ``1 - min(1, torch / reference)``. Whatever PyTorch left, the
candidate's compiled code did (the outputs are correct, and compute that bypasses the
dispatcher is forbidden at link level, even under ``mixed``).

A candidate is a passthrough when its own share is below :data:`MIN_OWN_SHARE` in every
kind the reference has: PyTorch did at least three quarters of each. Kinds are judged
apart because they have no common unit a share could be fair in: the bias, activation
and scale after a large GEMM are a fraction of a percent of its FLOPs, and a fused
epilogue kernel is still real work (our own level-2 reference solutions are that).

Pure functions; the parent's judge (``_judge.py``) applies them.
"""

from __future__ import annotations

import math

#: The least share of one kind of the reference's work the candidate's own code must do.
MIN_OWN_SHARE = 0.25


class MalformedWork(ValueError):
    """A work record that is not a finite, non-negative amount per known kind."""


def checked_work(record: dict[str, float], kinds: tuple[str, ...]) -> dict[str, float]:
    """``record`` as a full map over ``kinds`` (missing kinds are 0).

    Raises:
        MalformedWork: an unknown kind, or an amount that is negative or not finite.
    """
    unknown = sorted(set(record) - set(kinds))
    if unknown:
        raise MalformedWork(f"unknown kinds of work: {', '.join(unknown)}")
    for kind, amount in record.items():
        if not isinstance(amount, int | float) or not math.isfinite(amount) or amount < 0:
            raise MalformedWork(f"{kind}={amount!r}")
    return {kind: float(record.get(kind, 0.0)) for kind in kinds}


def own_shares(reference: dict[str, float], by_torch: dict[str, float]) -> dict[str, float]:
    """Per kind of work the reference does, the share PyTorch did not do in the candidate."""
    return {kind: 1.0 - min(1.0, by_torch.get(kind, 0.0) / amount)
            for kind, amount in reference.items() if amount > 0}


def is_passthrough(shares: dict[str, float], minimum: float = MIN_OWN_SHARE) -> bool:
    """PyTorch did at least ``1 - minimum`` of every kind of the reference's work."""
    return bool(shares) and all(share < minimum for share in shares.values())


def describe(shares: dict[str, float]) -> str:
    """``contraction 0%, pointwise 12%`` (the candidate's own shares)."""
    return ", ".join(f"{kind} {share:.0%}" for kind, share in sorted(shares.items()))
