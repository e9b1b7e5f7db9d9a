"""Plausibility of a correct candidate's speed: ``custom_share``, the ``suspicious`` flag,
and the rejection of times faster than physics.

A configuration's speed of light is the task's bytes at the peak memory bandwidth, or its
FLOPs at the peak compute rate (``kerneltrials.tasks._cost``), whichever takes longer;
the peaks are deliberately generous upper bounds. A median below the bound by a clear
margin (:data:`FASTER_THAN_LIGHT_MARGIN`) is not fast, it is work not done (memoised,
skipped, done outside the timed window): the verdict is ``rejected`` with
``integrity:faster_than_light``. A median below the bound within that margin, or a
speedup over eager above ``CheckOptions.suspicious_speedup`` (default 10x), flags the
verdict ``suspicious``: still correct, but scoring leaves its speedup out of the headline
fast_p until a re-verification.
"""

from __future__ import annotations

import statistics
from typing import Any

from kerneltrials.tasks import ConfigCost, TaskSpec, config_cost
from kerneltrials.verifier.harness._per_config import PerConfig
from kerneltrials.verifier.harness._session import Session
from kerneltrials.verifier.verdict import ConfigResult, Verdict

#: (bytes/s, FLOP/s) no machine of the backend's class beats: a dual-socket server's
#: memory bandwidth and vector peak; a current datacenter GPU's HBM and tensor-core peak.
DEFAULT_PEAKS = {"cpu": (1.0e12, 2.0e13), "cuda": (1.0e13, 5.0e15)}
#: How far below its speed of light a median must be to be rejected rather than flagged:
#: the cost model counts each input and output once, so a margin absorbs its slack.
FASTER_THAN_LIGHT_MARGIN = 2.0


def custom_share(results: list[ConfigResult]) -> float | None:
    """Median over configurations and seeds of the time share inside compiled functions."""
    shares = [share for result in results for share in result.custom_shares]
    return statistics.median(shares) if shares else None


def _cost_or_none(task: TaskSpec, overrides: dict[str, Any]) -> ConfigCost | None:
    try:
        return config_cost(task, overrides)
    except Exception:  # a task the counter cannot run: no bound, never a false flag
        return None


_cost = PerConfig(_cost_or_none)


def _speed_of_light_ms(session: Session, overrides: dict[str, Any]) -> float | None:
    cost = _cost(session.task, overrides)
    if cost is None:
        return None
    default_bytes, default_flops = DEFAULT_PEAKS.get(session.options.backend, DEFAULT_PEAKS["cpu"])
    bytes_per_s = session.options.peak_bytes_per_s or default_bytes
    flops = session.options.peak_flops or default_flops
    bound_s = max(cost.bytes / bytes_per_s, (cost.flops or 0) / flops)
    return bound_s * 1000


def _below_light(session: Session) -> list[tuple[str, float, float]]:
    """(configuration, measured median ms, bound ms) for every median below its bound."""
    found = []
    for config in session.configs:
        result = session.results.get(config.name)
        if result is None or "candidate" not in result.times_ms:
            continue
        bound_ms = _speed_of_light_ms(session, config.overrides)
        measured_ms = result.times_ms["candidate"].median
        if bound_ms is not None and measured_ms < bound_ms:
            found.append((config.name, measured_ms, bound_ms))
    return found


def faster_than_light(session: Session) -> list[str]:
    """``integrity:faster_than_light`` reasons: medians below their bound by the margin."""
    return [f"integrity:faster_than_light on {name}: {measured:.4f} ms is below "
            f"{bound:.4f} ms / {FASTER_THAN_LIGHT_MARGIN:g} (the speed of light)"
            for name, measured, bound in _below_light(session)
            if measured * FASTER_THAN_LIGHT_MARGIN < bound]


def flag_suspicious(session: Session, verdict: Verdict) -> None:
    """Set ``verdict.suspicious`` with a ``suspicious:*`` reason for each cause."""
    ratio = session.options.suspicious_speedup
    if verdict.speedup is not None and verdict.speedup > ratio:
        verdict.suspicious = True
        verdict.reasons.append(f"suspicious:speedup {verdict.speedup:.1f}x over eager is above "
                               f"{ratio:g}x")
    for name, measured_ms, bound_ms in _below_light(session):
        verdict.suspicious = True
        verdict.reasons.append(f"suspicious:below_speed_of_light on {name}: "
                               f"{measured_ms:.4f} ms < {bound_ms:.4f} ms")
