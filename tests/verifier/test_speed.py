"""The suspicious flag: a ratio over eager, and times below the task's speed of light."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from kerneltrials.tasks import load_task, shape_configs
from kerneltrials.verifier import CheckOptions, ConfigResult, Status, TimingStats, Verdict
from kerneltrials.verifier.harness._speed import (
    FASTER_THAN_LIGHT_MARGIN,
    _speed_of_light_ms,
    custom_share,
    faster_than_light,
    flag_suspicious,
)
from tests.verifier.corpus import TASKS

pytestmark = pytest.mark.timeout(120)


def a_session(candidate_ms: float, **options: object) -> SimpleNamespace:
    task = load_task(TASKS / "tiny_relu.py")
    configs = shape_configs(task, "cpu", 11)[:1]
    result = ConfigResult(name=configs[0].name, kind=configs[0].kind, params={}, passed=True,
                          times_ms={"candidate": TimingStats(median=candidate_ms, iqr=0.0, n=5)})
    return SimpleNamespace(task=task, configs=configs, results={configs[0].name: result},
                           options=CheckOptions(**options))  # type: ignore[arg-type]


def a_verdict(speedup: float) -> Verdict:
    return Verdict(task="path:tiny_relu", backend="cpu", status=Status.CORRECT, speedup=speedup)


def test_plausible_speed_is_not_flagged() -> None:
    verdict = a_verdict(1.8)
    flag_suspicious(a_session(0.05), verdict)  # type: ignore[arg-type]
    assert not verdict.suspicious and verdict.reasons == []


def test_speedup_above_the_ratio_is_flagged() -> None:
    verdict = a_verdict(25.0)
    flag_suspicious(a_session(0.05, suspicious_speedup=20.0), verdict)  # type: ignore[arg-type]
    assert verdict.suspicious and verdict.reasons[0].startswith("suspicious:speedup 25.0x")


def test_time_below_the_speed_of_light_is_flagged() -> None:
    # 64 x 257 floats read and written: ~132 kB; at 1 GB/s that takes ~0.13 ms.
    verdict = a_verdict(1.5)
    flag_suspicious(a_session(0.01, peak_bytes_per_s=1e9), verdict)  # type: ignore[arg-type]
    assert verdict.suspicious
    assert verdict.reasons[0].startswith("suspicious:below_speed_of_light on public-0")


def test_far_below_the_speed_of_light_is_rejected_not_flagged() -> None:
    """Work not done is not fast: a median under the bound by the margin is a rejection."""
    session = a_session(0.01, peak_bytes_per_s=1e9)  # bound ~0.13 ms: 13x too fast
    reasons = faster_than_light(session)  # type: ignore[arg-type]
    assert len(reasons) == 1 and reasons[0].startswith("integrity:faster_than_light on public-0")


def test_just_below_the_speed_of_light_is_only_flagged() -> None:
    probe = a_session(1.0, peak_bytes_per_s=1e9)
    bound = _speed_of_light_ms(probe, probe.configs[0].overrides)  # type: ignore[arg-type]
    assert bound is not None
    session = a_session(bound / (FASTER_THAN_LIGHT_MARGIN * 0.8), peak_bytes_per_s=1e9)
    assert faster_than_light(session) == []  # type: ignore[arg-type]
    verdict = a_verdict(1.5)
    flag_suspicious(session, verdict)  # type: ignore[arg-type]
    assert verdict.suspicious and "below_speed_of_light" in verdict.reasons[0]


def test_custom_share_is_the_median_over_configurations() -> None:
    results = [ConfigResult(name=f"c{i}", kind="public", params={}, passed=True,
                            custom_shares=shares)
               for i, shares in enumerate(([0.2, 0.4], [0.9], []))]
    assert custom_share(results) == pytest.approx(0.4)
    # Stored verdicts written before the field existed still load, with no shares.
    old = ConfigResult.model_validate({"name": "c", "kind": "public", "params": {}, "passed": True})
    assert old.custom_shares == [] and custom_share([old]) is None
    assert custom_share([]) is None
