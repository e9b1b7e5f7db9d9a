"""Plausibility of a correct candidate's speed: ``custom_share`` and the ``suspicious`` flag.

A verdict is flagged (still counted, shown as flagged) when its speedup over eager is
above ``CheckOptions.suspicious_speedup`` (default 10x) or when a configuration's median
time is below its speed of light: the task's bytes at the peak memory bandwidth, or its
FLOPs at the peak compute rate (``kerneltrials.tasks._cost``). Peaks are deliberately
generous upper bounds, so only impossible times are flagged.
"""

from __future__ import annotations

import statistics
from typing import Any

from kerneltrials.tasks import config_cost
from kerneltrials.verifier.harness._session import Session
from kerneltrials.verifier.verdict import ConfigResult, Verdict

#: (bytes/s, FLOP/s) no machine of the backend's class beats: a dual-socket server's
#: memory bandwidth and vector peak; a current datacenter GPU's HBM and tensor-core peak.
DEFAULT_PEAKS = {"cpu": (1.0e12, 2.0e13), "cuda": (1.0e13, 5.0e15)}


def custom_share(results: list[ConfigResult]) -> float | None:
    """Median over configurations and seeds of the time share inside compiled functions."""
    shares = [share for result in results for share in result.custom_shares]
    return statistics.median(shares) if shares else None


def _speed_of_light_ms(session: Session, overrides: dict[str, Any]) -> float | None:
    try:
        cost = config_cost(session.task, overrides)
    except Exception:  # a task the counter cannot run: no bound, never a false flag
        return None
    default_bytes, default_flops = DEFAULT_PEAKS.get(session.options.backend, DEFAULT_PEAKS["cpu"])
    bytes_per_s = session.options.peak_bytes_per_s or default_bytes
    flops = session.options.peak_flops or default_flops
    bound_s = max(cost.bytes / bytes_per_s, (cost.flops or 0) / flops)
    return bound_s * 1000


def flag_suspicious(session: Session, verdict: Verdict) -> None:
    """Set ``verdict.suspicious`` with a ``suspicious:*`` reason for each cause."""
    ratio = session.options.suspicious_speedup
    if verdict.speedup is not None and verdict.speedup > ratio:
        verdict.suspicious = True
        verdict.reasons.append(f"suspicious:speedup {verdict.speedup:.1f}x over eager is above "
                               f"{ratio:g}x")
    for config in session.configs:
        result = session.results.get(config.name)
        if result is None or "candidate" not in result.times_ms:
            continue
        bound_ms = _speed_of_light_ms(session, config.overrides)
        measured_ms = result.times_ms["candidate"].median
        if bound_ms is not None and measured_ms < bound_ms:
            verdict.suspicious = True
            verdict.reasons.append(f"suspicious:below_speed_of_light on {config.name}: "
                                   f"{measured_ms:.4f} ms < {bound_ms:.4f} ms")
