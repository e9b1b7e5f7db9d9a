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


#: Two-sided 95% normal quantile: the speedup interval's width in standard errors.
Z_95 = 1.96


def speedup_interval(baseline_ms: Sequence[float], candidate_ms: Sequence[float],
                     z: float = Z_95) -> tuple[float, float] | None:
    """Interval of ``median(baseline) / median(candidate)``, symmetric in log space.

    The ratio's relative error is the two medians' relative standard errors added in
    quadrature (independent samples); ``None`` while either side has too few samples to
    have one. Log-symmetric, so the geometric mean of intervals is an interval of the
    geometric mean of ratios.
    """
    if not baseline_ms or not candidate_ms:
        return None
    spread = math.hypot(median_rse(baseline_ms), median_rse(candidate_ms))
    center = median(candidate_ms)
    if not math.isfinite(spread) or center <= 0:
        return None
    ratio = median(baseline_ms) / center
    return ratio * math.exp(-z * spread), ratio * math.exp(z * spread)


def decided(interval: tuple[float, float] | None, thresholds: Sequence[float],
            max_relative_half_width: float) -> bool:
    """True when ``interval`` holds none of ``thresholds`` (every fast_p decision about
    this ratio comes out the same anywhere in it) and is no wider than
    ``exp(±max_relative_half_width)`` around its centre (so the figure stays usable)."""
    if interval is None:
        return False
    low, high = interval
    if math.log(high / low) / 2 > max_relative_half_width:
        return False
    return not any(low <= threshold <= high for threshold in thresholds)
