"""Statistics of repeated timings: pure functions, no I/O."""

from __future__ import annotations

import math
from collections.abc import Sequence


def quantile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated quantile of ``values`` (0 <= q <= 1)."""
    if not values:
        raise ValueError("quantile of no values")
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def median(values: Sequence[float]) -> float:
    return quantile(values, 0.5)


def iqr(values: Sequence[float]) -> float:
    return quantile(values, 0.75) - quantile(values, 0.25)


def median_rse(values: Sequence[float]) -> float:
    """Relative standard error of the median.

    Uses the IQR as a robust spread (sigma ~= IQR / 1.349) and the asymptotic standard
    error of a median, sqrt(pi / 2) * sigma / sqrt(n), so one slow outlier does not
    keep the measurement going.
    """
    n = len(values)
    if n < 2:
        return math.inf
    center = median(values)
    if center <= 0:
        return math.inf
    sigma = iqr(values) / 1.349
    return math.sqrt(math.pi / 2) * sigma / math.sqrt(n) / center


def geometric_mean(values: Sequence[float]) -> float:
    if not values or any(v <= 0 or not math.isfinite(v) for v in values):
        raise ValueError("geometric mean needs positive finite values")
    return math.exp(sum(math.log(v) for v in values) / len(values))
