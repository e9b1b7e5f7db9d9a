"""The adaptive stop of the timing loop: a configuration is timed until its speedup's
interval decides every fast_p threshold, or to the old budgets (docs/design/timing.md,
"When timing stops")."""

from __future__ import annotations

import math
import random

import pytest

from kerneltrials.verifier import TimingOptions
from kerneltrials.verifier.harness._baselines import StoredBaseline
from kerneltrials.verifier.harness._output_reads import OutputReads, check_probability
from kerneltrials.verifier.harness._stats import decided, speedup_interval
from kerneltrials.verifier.harness._timing_loop import (
    DECISION_THRESHOLDS,
    Side,
    batch_size,
    read_probability,
)


def test_the_interval_holds_the_ratio_of_medians_and_narrows_with_more_samples() -> None:
    baseline = [10.0, 10.5, 9.5, 10.2, 9.8]
    candidate = [5.0, 5.2, 4.8, 5.1, 4.9]
    low, high = speedup_interval(baseline, candidate) or (0.0, 0.0)
    assert low < 2.0 < high
    assert math.isclose(math.sqrt(low * high), 2.0)  # symmetric in log space
    wide = high / low
    low, high = speedup_interval(baseline * 8, candidate * 8) or (0.0, 0.0)
    assert high / low < wide


def test_no_interval_from_too_few_samples() -> None:
    assert speedup_interval([1.0], [1.0, 1.1]) is None
    assert speedup_interval([], [1.0, 1.1]) is None


@pytest.mark.parametrize(("interval", "expected"), [
    ((0.30, 0.33), True),  # clearly below every threshold
    ((0.95, 1.05), False),  # 1x is inside: keep timing
    ((1.6, 1.7), True),  # between 1.5 and 2
    ((3.0, 5.0), False),  # clear of every threshold, but too wide to report
    (None, False),
])
def test_decided_needs_every_threshold_outside_and_a_narrow_interval(
        interval: tuple[float, float] | None, expected: bool) -> None:
    assert decided(interval, DECISION_THRESHOLDS, 0.1) is expected


def test_the_thresholds_are_the_reported_fast_p_values() -> None:
    assert DECISION_THRESHOLDS == (0.8, 1.0, 1.5, 2.0)


def test_reads_are_drawn_for_the_fewest_calls_an_early_stop_leaves() -> None:
    # 2 ms calls in batches of 25: the budget alone would time 400 calls (p ~ 0.29); the
    # candidate can steady its times to stop after three batches, 75 calls.
    adaptive, fixed = TimingOptions(), TimingOptions(decided_half_width=None)
    assert read_probability(fixed, 0.002, 25) == check_probability(400)
    assert read_probability(adaptive, 0.002, 25) == check_probability(75)
    assert check_probability(75) > 2.5 * check_probability(400)
    # A call of 0.5 s: the budget (4 calls, raised to min_calls) is what both read for.
    assert read_probability(adaptive, 0.5, 1) == read_probability(fixed, 0.5, 1)
    assert read_probability(fixed, 0.5, 1) == check_probability(5) > 0.9999


def _side(name: str, batch: int, samples: int, reads: OutputReads | None = None) -> Side:
    side = Side(name, worker=None, mode=name, batch=batch, reads=reads)  # type: ignore[arg-type]
    side.samples_ms = [1.0] * samples
    return side


def test_a_batch_times_no_more_calls_than_its_side_has_left() -> None:
    quick = TimingOptions(max_calls=20)
    read = OutputReads(worker=None)  # type: ignore[arg-type]
    for side in (_side("eager", 40, 0), _side("candidate", 40, 0, read)):
        assert batch_size(side, quick) == 20  # not 40 calls where 20 end the side
    assert batch_size(_side("eager", 40, 17), quick) == 3
    assert batch_size(_side("eager", 8, 4), quick) == 8
    # Unread candidate batches keep their size: a short one would mark the last measured
    # batch, which the spot checks' extra batch after it must look like.
    assert batch_size(_side("candidate", 40, 0), quick) == 40
    unread = OutputReads(worker=None, unavailable="no privilege")  # type: ignore[arg-type]
    assert batch_size(_side("candidate", 40, 0, unread), quick) == 40
    # Eager's calibration beside a stored baseline is no sample: what cuts it is the cap
    # the round computes from the candidate, and never to more than its own batch.
    calibrating = _side("eager", 40, 0)
    calibrating.stored = StoredBaseline(samples_ms=(1.0,) * 20, measured_at=0.0)
    assert batch_size(calibrating, quick) == 40  # the candidate is not timed here
    assert batch_size(calibrating, quick, calibration_cap=20) == 20
    assert batch_size(calibrating, quick, calibration_cap=3) == 3
    assert batch_size(calibrating, quick, calibration_cap=50) == 40


def test_eagers_calibration_is_timed_as_long_as_the_candidates_batches(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    from kerneltrials.verifier.harness import _timing_loop

    timed: list[tuple[str, int]] = []

    def times(session: object, side: Side, config: object, n_calls: int, timeout_s: float,
              rng: object = None) -> list[float]:
        timed.append((side.name, n_calls))
        side.untimed_per_call.append(0.1)
        return [1.0] * n_calls

    monkeypatch.setattr(_timing_loop, "_request_times", times)
    quick = TimingOptions(max_calls=20, target_rse=0.0, max_measure_s=60, max_wall_s=60)
    session = SimpleNamespace(options=SimpleNamespace(timing=quick, call_timeout_s=1.0))
    def rounds(candidate_batch: int, seed: int,
               unavailable: str | None = None) -> list[tuple[str, int]]:
        timed.clear()
        reads = OutputReads(worker=None, unavailable=unavailable)  # type: ignore[arg-type]
        candidate, eager = _side("candidate", candidate_batch, 0, reads), _side("eager", 50, 0)
        eager.stored = StoredBaseline(samples_ms=(1.0,) * 20, measured_at=0.0)
        rng = random.Random(seed)
        while not all(side.done(quick) for side in (candidate, eager)):
            _timing_loop._time_round(session, [candidate, eager], None, rng)  # type: ignore[arg-type]
        return list(timed)

    for seed in range(6):  # either order of the shuffle
        # Before: eager's 50-call batch beside the candidate's 20, whatever either needed.
        calls = rounds(40, seed)
        assert sorted(calls[:2]) == [("candidate", 20), ("eager", 20)], calls
        assert sum(n for name, n in calls if name == "eager") == 20, calls
        # A candidate whose batch is one call (its warm-up's own times make it so) does
        # not make eager's one call long too: the calibration is never shorter than the
        # candidate's batch beside it, so a window's fixed cost never weighs more per call
        # on eager's side, which would widen what the candidate may leave untimed.
        calls = rounds(1, seed)
        assert [n for name, n in calls if name == "eager"] == [20], calls
    # Unread, the candidate's batches keep their size (40 where 20 are left): eager's
    # calibration is as long, not cut to the 20.
    calls = rounds(40, 0, unavailable="no privilege")
    assert sorted(calls) == [("candidate", 40), ("eager", 40)], calls


@pytest.mark.slow
@pytest.mark.alone  # how many calls decide it depends on how noisy the machine is
def test_a_clearly_slow_candidate_is_timed_less_and_its_interval_is_in_the_verdict() -> None:
    from kerneltrials.verifier import CheckOptions, TimingOptions, check
    from tests.verifier.candidates import slow_relu_candidate

    source = slow_relu_candidate()
    # A target no run reaches, so without the adaptive stop every configuration is
    # timed to max_calls; with it, to a few batches. The allowed width is loose (the
    # interval may span e^±1.2) because eager relu's times spread widely on a loaded
    # machine; at about 0.2x that still keeps 0.8x outside.
    timing = TimingOptions(warmup_calls=1, target_rse=1e-6, max_measure_s=30.0, max_wall_s=30.0,
                           min_calls=3, max_calls=40, batch_target_s=0.005)
    verdicts = {}
    for name, half_width in (("fixed", None), ("adaptive", 1.2)):
        options = CheckOptions(hidden_seed=5, compile_baseline=False,
                               timing=TimingOptions(**{**timing.__dict__,
                                                       "decided_half_width": half_width}))
        verdicts[name] = check("L1/relu", source, options=options)
    for verdict in verdicts.values():
        assert verdict.status == "correct", verdict.reasons
        assert verdict.speedup is not None and verdict.speedup < 0.6
    calls = {name: [c.times_ms["candidate"].n for c in verdict.configs]
             for name, verdict in verdicts.items()}
    assert all(n >= 40 for n in calls["fixed"]), calls
    # A configuration whose eager times spread too widely (a loaded machine) may still
    # run to the budget: most must not.
    assert sum(n < 40 for n in calls["adaptive"]) >= len(calls["adaptive"]) / 2, calls
    assert sum(calls["adaptive"]) < 0.6 * sum(calls["fixed"]), calls
    low, high = verdicts["adaptive"].speedup_interval or (0.0, 0.0)
    assert low <= verdicts["adaptive"].speedup <= high < 0.8
