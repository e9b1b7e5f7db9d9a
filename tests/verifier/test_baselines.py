"""One baseline per run (docs/design/timing.md, "One baseline per run"): the store, its key,
and the run stage reusing a baseline an earlier check of the run timed."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import pytest

from kerneltrials.tasks import load_task, shape_configs
from kerneltrials.verifier import CheckOptions, TimingOptions
from kerneltrials.verifier.harness import _baselines
from kerneltrials.verifier.harness._baselines import BaselineStore, StoredBaseline, baseline_key

MACHINE = {"cpu": "a test CPU", "cores": 2, "torch": "2.x"}


def _baseline(*samples: float, at: float = 1000.0) -> StoredBaseline:
    return StoredBaseline(samples_ms=tuple(samples), measured_at=at)


def test_a_stored_baseline_is_found_by_its_key_and_only_by_it() -> None:
    store = BaselineStore(root=None)
    assert store.get("a", now=1000.0) is None
    stored = store.put("a", _baseline(1.0, 1.1))
    assert store.get("a", now=1001.0) == stored == _baseline(1.0, 1.1)
    assert store.get("b", now=1001.0) is None


def test_the_first_baseline_stored_is_the_one_every_process_reads(tmp_path: Path) -> None:
    # Two stores over one directory: two checks of a run in two processes that raced.
    first, second = BaselineStore(tmp_path), BaselineStore(tmp_path)
    mine = first.put("k", _baseline(2.0, 2.2))
    theirs = second.put("k", _baseline(9.0, 9.9, at=1001.0))
    assert mine == theirs == _baseline(2.0, 2.2)
    assert BaselineStore(tmp_path).get("k", now=1002.0) == mine
    assert [p.name for p in tmp_path.iterdir()] == ["k.json"]  # no staging file left


def test_a_damaged_or_stale_entry_is_timed_again_and_replaced(tmp_path: Path) -> None:
    (tmp_path / "k.json").write_text("{not json")
    store = BaselineStore(tmp_path, max_age_s=100.0)
    assert store.get("k", now=1000.0) is None
    assert store.put("k", _baseline(3.0)) == _baseline(3.0)
    assert BaselineStore(tmp_path).get("k", now=1000.0) == _baseline(3.0)
    # Older than max_age_s: not read, and a newer measurement takes its place.
    later = BaselineStore(tmp_path, max_age_s=100.0)
    assert later.get("k", now=1200.0) is None
    assert later.put("k", _baseline(4.0, at=1200.0)) == _baseline(4.0, at=1200.0)
    assert BaselineStore(tmp_path).get("k", now=1201.0) == _baseline(4.0, at=1200.0)


@pytest.mark.parametrize("entry", [
    {"samples_ms": [], "measured_at": 1000.0},
    {"samples_ms": [1.0, -2.0], "measured_at": 1000.0},
    {"samples_ms": [1.0, math.nan], "measured_at": 1000.0},
    {"samples_ms": [1.0, "2"], "measured_at": 1000.0},
    {"samples_ms": 1.0, "measured_at": 1000.0},
    {"samples_ms": [1.0]},
    [1.0, 2.0],
])
def test_an_entry_with_impossible_samples_is_not_read(tmp_path: Path, entry: object) -> None:
    (tmp_path / "k.json").write_text(json.dumps(entry))
    assert BaselineStore(tmp_path).get("k", now=1000.0) is None


def test_a_cache_it_cannot_write_still_shares_within_the_process(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    store = BaselineStore(blocked / "baselines")  # mkdir fails: not a directory
    assert store.put("k", _baseline(5.0)) == _baseline(5.0)
    assert store.get("k", now=1000.0) == _baseline(5.0)


def test_the_key_changes_with_everything_a_baseline_depends_on() -> None:
    task = load_task("L1/relu")
    configs = shape_configs(task, "cpu", 7)
    options = CheckOptions()
    base = baseline_key(task, configs[0], "eager", 7, options, MACHINE)
    assert base == baseline_key(task, configs[0], "eager", 7, options, dict(MACHINE))
    others = [
        baseline_key(task, configs[1], "eager", 7, options, MACHINE),
        baseline_key(task, configs[0], "compile", 7, options, MACHINE),
        baseline_key(task, configs[0], "eager", 8, options, MACHINE),
        baseline_key(task, configs[0], "eager", 7,
                     replace(options, timing=TimingOptions(max_calls=41)), MACHINE),
        baseline_key(task, configs[0], "eager", 7, replace(options, fresh_inputs=False), MACHINE),
        baseline_key(task, configs[0], "eager", 7, replace(options, inputs="signed"), MACHINE),
        baseline_key(task, configs[0], "eager", 7, replace(options, backend="cuda"), MACHINE),
        baseline_key(task, configs[0], "eager", 7, options, {**MACHINE, "cores": 4}),
        baseline_key(replace(task, source=task.source + "\n# changed\n"), configs[0], "eager",
                     7, options, MACHINE),
        baseline_key(task, replace(configs[0], overrides={**configs[0].overrides, "x": 1}),
                     "eager", 7, options, MACHINE),
    ]
    assert base not in others and len(set(others)) == len(others)



@pytest.mark.slow
@pytest.mark.alone  # whether the adaptive stop ends a configuration early depends on noise
def test_later_candidates_of_a_run_reuse_its_baselines_timed_to_their_own_budget(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kerneltrials.verifier import check
    from tests.verifier.candidates import candidate, slow_relu_candidate

    monkeypatch.setattr(_baselines, "default_root", lambda: tmp_path)
    honest = candidate("relu_ok")
    slow = slow_relu_candidate()
    # As in test_timing_decisions: an RSE no run reaches, so a side's own rule ends it at
    # max_calls, while the adaptive stop (a loose width) ends a 0.2x candidate earlier.
    timing = TimingOptions(warmup_calls=1, target_rse=1e-6, max_measure_s=30.0,
                           max_wall_s=30.0, min_calls=3, max_calls=40, batch_target_s=0.005,
                           decided_half_width=1.2)
    options = CheckOptions(hidden_seed=31, compile_baseline=True, timing=timing)
    first = check("L1/relu", slow, options=options)
    assert first.status == "correct", first.reasons
    for config in first.configs:
        for side in ("eager", "compile"):
            assert not config.times_ms[side].reused
            # Stored for the run: timed to its own rule, not cut short with the candidate.
            assert config.times_ms[side].n >= 40, (config.name, side, config.times_ms)
    assert any(config.times_ms["candidate"].n < 40 for config in first.configs), first.configs

    second = check("L1/relu", honest, options=options)
    assert second.status == "correct", second.reasons
    for before, after in zip(first.configs, second.configs, strict=True):
        for side in ("eager", "compile"):
            then, now = before.times_ms[side], after.times_ms[side]
            assert now.reused and (now.median, now.iqr, now.n) == (then.median, then.iqr, then.n)
        # eager times a few batches to calibrate the timing loop; compile is not timed.
        assert after.times_ms["eager"].recheck_median is not None
        assert after.times_ms["eager"].untimed_ms is not None
        assert after.times_ms["compile"].recheck_median is None
    # The same denominator: the two speedups are in the ratio of the candidates' medians.
    for before, after in zip(first.configs, second.configs, strict=True):
        ratio = ((before.times_ms["eager"].median / before.times_ms["candidate"].median)
                 / (after.times_ms["eager"].median / after.times_ms["candidate"].median))
        assert math.isclose(ratio, after.times_ms["candidate"].median
                            / before.times_ms["candidate"].median)

    # Off: the same run's check times its own (another seed is another key, above).
    unshared = check("L1/relu", honest, options=replace(options, reuse_baselines=False,
                                                        compile_baseline=False))
    assert unshared.status == "correct", unshared.reasons
    assert not any(c.times_ms["eager"].reused for c in unshared.configs)


@pytest.mark.slow
def test_the_runs_first_candidate_is_timed_as_its_later_ones_are(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The first check to time a configuration times and stores its baselines before its
    # candidate, alone; from the candidate's first batch on, every check of the run
    # times only the candidate and eager's few calibration batches (a warm-up and
    # RECHECK_BATCHES), so no candidate of the run is timed among full baseline batches.
    from kerneltrials.verifier import QUICK_TIMING, check
    from kerneltrials.verifier.harness import _timing_loop
    from tests.verifier.candidates import candidate

    monkeypatch.setattr(_baselines, "default_root", lambda: tmp_path)
    batches: list[tuple[str, str]] = []
    request_times = _timing_loop._request_times

    def recorded(session, side, config, n_calls, timeout_s, rng=None):  # type: ignore[no-untyped-def]
        batches.append((config.name, side.name))
        return request_times(session, side, config, n_calls, timeout_s, rng)

    monkeypatch.setattr(_timing_loop, "_request_times", recorded)
    options = CheckOptions(hidden_seed=37, compile_baseline=True, timing=QUICK_TIMING)
    for first in (True, False):
        batches.clear()
        verdict = check("L1/relu", candidate("relu_ok"), options=options)
        assert verdict.status == "correct", verdict.reasons
        for config in verdict.configs:
            sides = [side for name, side in batches if name == config.name]
            start = sides.index("candidate")
            before, beside = sides[:start], sides[start:]
            # The first check times both baselines first; a later one neither.
            assert set(before) == ({"eager", "compile"} if first else set()), sides
            assert "compile" not in beside, sides
            assert 1 <= beside.count("eager") <= 1 + _timing_loop.RECHECK_BATCHES, sides
            assert config.times_ms["eager"].reused is not first
            assert config.times_ms["eager"].untimed_ms is not None


def test_a_check_without_a_run_seed_shares_nothing() -> None:
    # A seed the check draws for itself is its own: nothing of it could be reused, so
    # nothing is stored, nor timed on past the adaptive stop to be stored.
    from kerneltrials.verifier._check import _resolve

    assert _resolve("L1/relu", CheckOptions())[1].reuse_baselines is False
    assert _resolve("L1/relu", CheckOptions(hidden_seed=3))[1].reuse_baselines is True
    assert _resolve("L1/relu", CheckOptions(hidden_seed=3,
                                            reuse_baselines=False))[1].reuse_baselines is False


@pytest.mark.parametrize("quick", [False, True])
def test_a_bundle_verification_times_its_own_baselines(monkeypatch: pytest.MonkeyPatch,
                                                       quick: bool) -> None:
    # Given the bundle's own seed on the machine that made it, a shared baseline could be
    # the very measurement the verification is there to redo.
    import kerneltrials.verifier
    from kerneltrials.leaderboard._verify import default_checker
    from kerneltrials.verifier import Verdict

    seen: list[CheckOptions] = []

    def fake_check(task: str, source: str, **kwargs: object) -> Verdict:
        options = kwargs["options"]
        assert isinstance(options, CheckOptions)
        seen.append(options)
        return Verdict(task=task, backend="cpu", status="error")

    monkeypatch.setattr(kerneltrials.verifier, "check", fake_check)
    default_checker(quick=quick)("L1/relu", "source", "cpu", 7)
    assert seen and seen[0].reuse_baselines is False


def test_a_run_stage_keeps_the_builds_answer_on_sharing() -> None:
    # build() drew the seed: a run() given fresh options (reuse on by default) must not
    # share baselines under that drawn seed.
    import kerneltrials.verifier._check as check_module
    from kerneltrials.verifier import Built, run
    from kerneltrials.verifier._check import _resolve

    spec, drawn = _resolve("L1/relu", CheckOptions())
    built = Built(task=spec, source="", options=drawn)
    seen: list[CheckOptions] = []

    def fake_session(task: object, source: str, options: CheckOptions) -> None:
        seen.append(options)
        raise RuntimeError("stop here")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(check_module, "_session", fake_session)
        with pytest.raises(RuntimeError, match="stop here"):
            run(built, CheckOptions(timing=TimingOptions(max_calls=7)))
    assert seen[0].reuse_baselines is False and seen[0].hidden_seed == drawn.hidden_seed
    assert seen[0].timing.max_calls == 7


def test_entries_no_check_may_read_are_removed_when_the_next_is_stored(tmp_path: Path) -> None:
    import os

    old, recent = tmp_path / f"{'o' * 64}.json", tmp_path / f"{'r' * 64}.json"
    for path in (old, recent):
        path.write_text(json.dumps(_baseline(1.0).to_dict()))
    os.utime(old, (1000.0 - 250.0, 1000.0 - 250.0))  # older than twice max_age_s
    os.utime(recent, (1000.0 - 150.0, 1000.0 - 150.0))  # stale, not yet swept
    BaselineStore(tmp_path, max_age_s=100.0).put("k", _baseline(2.0))
    assert not old.exists() and recent.exists() and (tmp_path / "k.json").exists()
