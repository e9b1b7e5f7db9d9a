"""Timing fidelity on the GPU: twice the work measures twice the time, and verdicts
repeat. On the ``gpu`` profile (full-size shapes), where kernels run for milliseconds."""

from __future__ import annotations

import math

import pytest

from kerneltrials.verifier import Status
from tests.gpu import sources
from tests.gpu._checks import check_cuda, summary


def _candidate_median_ms(verdict) -> float:
    """Geometric mean over configurations of the candidate's median time."""
    logs = [math.log(config.times_ms["candidate"].median) for config in verdict.configs]
    return math.exp(sum(logs) / len(logs))


@pytest.mark.timeout(900)
def test_twice_the_work_measures_twice_the_time(figures) -> None:
    """The same machine code doing 1x and 2x the arithmetic: 2.0 +- 0.2x apart."""
    single = check_cuda("L1/relu", sources.relu_work(1024), quick=False, profile="gpu")
    double = check_cuda("L1/relu", sources.relu_work(2048), quick=False, profile="gpu")
    assert single.status == Status.CORRECT and double.status == Status.CORRECT
    time_ratio = _candidate_median_ms(double) / _candidate_median_ms(single)
    speedup_ratio = (single.speedup or 0) / (double.speedup or 1)
    figures(kind="fidelity", time_ratio=time_ratio, speedup_ratio=speedup_ratio,
            single=summary(single), double=summary(double))
    assert 1.8 <= time_ratio <= 2.2, time_ratio
    assert 1.8 <= speedup_ratio <= 2.2, speedup_ratio


@pytest.mark.timeout(900)
def test_three_verdicts_of_one_kernel_agree_within_five_percent(figures) -> None:
    speedups = []
    for _ in range(3):
        verdict = check_cuda("L1/relu", sources.relu_work(256), quick=False, profile="gpu")
        assert verdict.status == Status.CORRECT, verdict.reasons
        speedups.append(verdict.speedup or 0.0)
    spread = max(speedups) / min(speedups)
    figures(kind="stability", speedups=speedups, spread=spread)
    assert spread <= 1.05, speedups
