"""Scoring against hand-computed tables; edge cases first."""

from __future__ import annotations

import math
from typing import Any

import pytest

from kerneltrials.scoring import (
    CURVE_P_MAX,
    CURVE_P_STEP,
    DEFAULT_P_VALUES,
    EXCLUDED,
    SCORES_VERSION,
    ScoredAttempt,
    fast_p_curve,
    geomean_with_ci,
    parse_p_values,
    pass_at_k,
    remeasured_attempts,
    score_attempts,
    score_by_group,
    standard_report,
)

pytestmark = pytest.mark.timeout(60)

P = "0,1,1.5,2"


def an_attempt(
    task: str = "L1/a", status: str = "correct", speedup: float | None = 1.0, **fields: Any
) -> ScoredAttempt:
    """A verdict-like record; ``speedup`` is only meaningful for correct ones."""
    return ScoredAttempt(task_id=task, status=status, speedup=speedup, **fields)


# --- edge cases -------------------------------------------------------------------------


def test_excluded_statuses_agree_with_the_verdict_model() -> None:
    from kerneltrials.verifier.verdict import EXCLUDED_STATUSES

    assert EXCLUDED == {str(status) for status in EXCLUDED_STATUSES}


def test_no_attempts_at_all_counts_every_selected_task_as_failure() -> None:
    report = score_attempts([], ["L1/a", "L1/b"], p_values=P)
    assert report.n_tasks == 2
    assert report.missing_tasks == 2
    assert report.fast_p == {"0": 0.0, "1": 0.0, "1.5": 0.0, "2": 0.0}
    assert report.correct_rate == 0.0
    assert report.geomean_speedup.value is None and report.geomean_speedup.ci95 is None
    assert report.pass_at_k is None


def test_empty_selection_and_no_attempts_is_undefined_not_zero() -> None:
    report = score_attempts([], [], p_values=P)
    assert report.n_tasks == 0
    assert report.fast_p == {"0": None, "1": None, "1.5": None, "2": None}
    assert report.correct_rate is None


def test_all_excluded_leaves_an_empty_denominator_and_reports_counts() -> None:
    attempts = [
        an_attempt("L1/a", "error", None),
        an_attempt("L1/b", "not_run", None),
        an_attempt("L1/b", "not_run", None, sample=1),
    ]
    report = score_attempts(attempts, ["L1/a", "L1/b"], p_values=P)
    assert report.n_tasks == 0
    assert report.excluded_tasks == 2
    assert report.excluded == {"error": 1, "not_run": 2}
    assert report.fast_p["1"] is None and report.correct_rate is None


@pytest.mark.parametrize("bad", [float("nan"), None, float("inf"), 0.0, -1.0])
def test_correct_with_unusable_speedup_is_correct_but_never_fast(bad: float | None) -> None:
    report = score_attempts([an_attempt(speedup=bad)], ["L1/a"], p_values="0,0.5,1")
    assert report.fast_p == {"0": 1.0, "0.5": 0.0, "1": 0.0}
    assert report.correct_rate == 1.0
    assert report.geomean_speedup.value is None


def test_correct_but_slow_counts_for_fast_0_only() -> None:
    report = score_attempts([an_attempt(speedup=0.5)], ["L1/a"], p_values=P)
    assert report.fast_p == {"0": 1.0, "1": 0.0, "1.5": 0.0, "2": 0.0}


def test_a_suspicious_correct_verdict_is_correct_but_never_fast() -> None:
    """A flagged speedup is not counted until re-verified: fast_0 yes, fast_p>0 no."""
    report = score_attempts([an_attempt(speedup=40.0, suspicious=True)], ["L1/a"], p_values=P)
    assert report.fast_p == {"0": 1.0, "1": 0.0, "1.5": 0.0, "2": 0.0}
    assert report.tasks[0].speedup is None


def test_an_honest_correct_attempt_beats_a_suspicious_faster_one() -> None:
    attempts = [an_attempt(speedup=40.0, suspicious=True, sample=0),
                an_attempt(speedup=1.2, sample=1)]
    report = score_attempts(attempts, ["L1/a"], p_values=P)
    assert report.tasks[0].speedup == 1.2
    assert report.fast_p == {"0": 1.0, "1": 1.0, "1.5": 0.0, "2": 0.0}


@pytest.mark.parametrize(
    "status", ["incorrect", "compile_error", "runtime_error", "timeout", "rejected"]
)
def test_failure_with_a_fast_speedup_never_counts(status: str) -> None:
    report = score_attempts([an_attempt(status=status, speedup=9.0)], ["L1/a"], p_values=P)
    assert report.fast_p == {"0": 0.0, "1": 0.0, "1.5": 0.0, "2": 0.0}
    assert report.n_tasks == 1 and report.geomean_speedup.value is None


@pytest.mark.parametrize(
    ("speedup", "p", "expected"),
    [
        (1.5, "1.5", 0.0),  # exactly p: strict, not fast
        (1.5000001, "1.5", 1.0),
        (1.0, "1", 0.0),
        (2.0, "2", 0.0),
        (2.0, "1.99", 1.0),
    ],
)
def test_fast_p_is_strict(speedup: float, p: str, expected: float) -> None:
    assert score_attempts([an_attempt(speedup=speedup)], ["L1/a"], p_values=p).fast_p[p] == expected


def test_selected_task_without_attempt_is_a_failure_in_the_denominator() -> None:
    report = score_attempts(
        [an_attempt("L1/a", speedup=3.0)], ["L1/a", "L1/b", "L1/c", "L1/d"], p_values=P
    )
    assert report.n_tasks == 4 and report.missing_tasks == 3
    assert report.fast_p == {"0": 0.25, "1": 0.25, "1.5": 0.25, "2": 0.25}


def test_excluded_task_leaves_denominator_but_a_failed_one_stays() -> None:
    attempts = [
        an_attempt("L1/a", speedup=2.0),
        an_attempt("L1/b", "error", None),
        an_attempt("L1/c", "incorrect", None),
    ]
    report = score_attempts(attempts, ["L1/a", "L1/b", "L1/c"], p_values=P)
    assert (report.n_tasks, report.excluded_tasks, report.excluded) == (2, 1, {"error": 1})
    assert report.fast_p == {"0": 0.5, "1": 0.5, "1.5": 0.5, "2": 0.0}


def test_p_values_keep_their_spelling_and_reject_garbage() -> None:
    assert parse_p_values("0, 1.0,1.5") == [("0", 0.0), ("1.0", 1.0), ("1.5", 1.5)]
    for bad in ("x", "-1", "nan", "1,,2"):
        with pytest.raises(ValueError):
            parse_p_values(bad)


# --- best attempt, baselines -------------------------------------------------------------


def test_best_attempt_per_task_over_samples_and_rounds() -> None:
    attempts = [
        an_attempt("L1/a", "incorrect", None, sample=0),
        an_attempt("L1/a", "correct", 1.2, sample=1),
        an_attempt("L1/a", "correct", 2.5, sample=2, round=1),
        an_attempt("L1/b", "error", None, sample=0),
        an_attempt("L1/b", "timeout", None, sample=1),  # a failure beats an excluded verdict
    ]
    report = score_attempts(attempts, ["L1/a", "L1/b"], p_values=P)
    assert report.n_tasks == 2 and report.excluded_tasks == 0 and report.excluded == {"error": 1}
    outcomes = {o.task_id: (o.status, o.speedup) for o in report.tasks}
    assert outcomes == {"L1/a": ("correct", 2.5), "L1/b": ("timeout", None)}
    assert report.fast_p == {"0": 0.5, "1": 0.5, "1.5": 0.5, "2": 0.5}


def test_compile_baseline_uses_speedup_compile() -> None:
    attempts = [
        an_attempt("L1/a", speedup=3.0, speedup_compile=0.9),
        an_attempt("L1/b", speedup=0.8, speedup_compile=1.6),
    ]
    eager = score_attempts(attempts, ["L1/a", "L1/b"], p_values="1,1.5", baseline="eager")
    compiled = score_attempts(attempts, ["L1/a", "L1/b"], p_values="1,1.5", baseline="compile")
    assert eager.fast_p == {"1": 0.5, "1.5": 0.5}
    assert compiled.fast_p == {"1": 0.5, "1.5": 0.5}
    assert [o.speedup for o in compiled.tasks] == [0.9, 1.6]
    assert compiled.geomean_speedup.value == pytest.approx(math.sqrt(0.9 * 1.6))
    with pytest.raises(ValueError, match="baseline"):
        score_attempts(attempts, [], baseline="fast")


# --- geomean and bootstrap ---------------------------------------------------------------


def test_geomean_hand_computed_over_correct_tasks_only() -> None:
    attempts = [
        an_attempt("L1/a", speedup=2.0),
        an_attempt("L1/b", speedup=8.0),
        an_attempt("L1/c", "incorrect", 100.0),
    ]
    report = score_attempts(attempts, ["L1/a", "L1/b", "L1/c"])
    assert report.geomean_speedup.value == pytest.approx(4.0)
    assert report.geomean_speedup.n == 2
    assert report.correct_rate == pytest.approx(2 / 3)


def test_bootstrap_ci_contains_point_and_is_deterministic_for_a_seed() -> None:
    speedups = [0.5, 0.9, 1.1, 1.3, 2.0, 3.5, 0.7, 1.8]
    first = geomean_with_ci(speedups, resamples=2000, seed=7)
    again = geomean_with_ci(speedups, resamples=2000, seed=7)
    other = geomean_with_ci(speedups, resamples=2000, seed=8)
    assert first == again
    assert first.ci95 != other.ci95
    assert first.ci95 is not None and first.value is not None
    assert first.ci95[0] < first.value < first.ci95[1]
    assert first.value == pytest.approx(math.exp(sum(map(math.log, speedups)) / len(speedups)))


def test_bootstrap_of_one_value_is_a_point_interval() -> None:
    result = geomean_with_ci([1.7])
    assert result.value == pytest.approx(1.7)
    assert result.ci95 == pytest.approx((1.7, 1.7))


# --- pass@k -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "c", "k", "expected"),
    [
        (10, 3, 1, 0.3),
        (5, 2, 2, 0.7),  # 1 - C(3,2)/C(5,2) = 1 - 3/10
        (4, 1, 2, 0.5),  # 1 - C(3,2)/C(4,2) = 1 - 3/6
        (5, 0, 3, 0.0),
        (5, 4, 2, 1.0),  # n - c < k
        (3, 3, 3, 1.0),
    ],
)
def test_pass_at_k_known_values(n: int, c: int, k: int, expected: float) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(expected)


def test_pass_at_k_rejects_impossible_counts() -> None:
    with pytest.raises(ValueError):
        pass_at_k(2, 3, 1)
    with pytest.raises(ValueError):
        pass_at_k(2, 1, 3)


def test_pass_at_k_table_over_tasks_with_samples() -> None:
    # L1/a: 4 samples, 1 correct (sample 2 correct in its second round); L1/b: 4 samples, 0
    # correct plus an excluded one; L1/c: selected, never attempted (contributes 0)
    attempts = [an_attempt("L1/a", "incorrect", None, sample=s) for s in (0, 1, 3)]
    attempts += [
        an_attempt("L1/a", "incorrect", None, sample=2),
        an_attempt("L1/a", "correct", 1.1, sample=2, round=1),
    ]
    attempts += [an_attempt("L1/b", "incorrect", None, sample=s) for s in range(4)]
    attempts += [an_attempt("L1/b", "error", None, sample=4)]
    report = score_attempts(attempts, ["L1/a", "L1/b", "L1/c"])
    assert report.pass_at_k == pytest.approx({"1": 0.25 / 3, "2": 0.5 / 3})
    assert "pass_at_k" in report.to_json()


def test_single_sample_runs_have_no_pass_at_k() -> None:
    report = score_attempts([an_attempt("L1/a"), an_attempt("L1/b")], ["L1/a", "L1/b"])
    assert report.pass_at_k is None and "pass_at_k" not in report.to_json()


# --- tokens, groups, JSON, ranks ----------------------------------------------------------


def test_tokens_and_cost_sum_over_all_attempts_and_per_attempted_task() -> None:
    attempts = [
        an_attempt("L1/a", prompt_tokens=100, completion_tokens=10, cost_usd=0.5),
        an_attempt(
            "L1/a", "error", None, sample=1, prompt_tokens=50, completion_tokens=5, cost_usd=0.25
        ),
        an_attempt("L1/b", prompt_tokens=30, completion_tokens=3, cost_usd=None),
    ]
    data = score_attempts(attempts, ["L1/a", "L1/b", "L1/c"], run="r1").to_json()
    assert data["tokens"] == {"prompt": 180, "completion": 18}
    assert data["cost_usd"] == pytest.approx(0.75)
    assert data["per_task"]["prompt_tokens"] == pytest.approx(90.0)
    assert data["per_task"]["cost_usd"] == pytest.approx(0.375)


def test_to_json_has_the_documented_keys() -> None:
    data = score_attempts(
        [an_attempt(speedup=2.0)], ["L1/a"], run="r1", p_values="0,1,1.5"
    ).to_json()
    for key in (
        "run",
        "n_tasks",
        "fast_p",
        "geomean_speedup",
        "correct_rate",
        "excluded",
        "tokens",
        "cost_usd",
        "baseline",
    ):
        assert key in data
    assert data["run"] == "r1" and data["baseline"] == "eager"
    assert list(data["fast_p"]) == ["0", "1", "1.5"]
    assert set(data["geomean_speedup"]) >= {"value", "ci95"}
    assert data["geomean_speedup"]["ci95"] == pytest.approx([2.0, 2.0])


def test_groups_by_level_and_by_tag_have_their_own_denominators() -> None:
    attempts = [an_attempt("L1/a", speedup=2.0), an_attempt("L2/b", "incorrect", None)]
    tags = {"L1/a": ["act", "mem"], "L2/b": ["mem"], "L2/c": []}
    groups = score_by_group(
        attempts, ["L1/a", "L2/b", "L2/c"], lambda t: tags[t] or ["(none)"], p_values="1"
    )
    assert {g: (r.n_tasks, r.fast_p["1"]) for g, r in groups.items()} == {
        "(none)": (1, 0.0),
        "act": (1, 1.0),
        "mem": (2, 0.5),
    }
    by_level = score_by_group(attempts, ["L1/a", "L2/b", "L2/c"], lambda t: [t[:2]], p_values="1")
    assert {g: r.fast_p["1"] for g, r in by_level.items()} == {"L1": 1.0, "L2": 0.0}


# --- the stored report ------------------------------------------------------------------


def test_standard_report_of_no_attempts_is_undefined_everywhere() -> None:
    report = standard_report([], [], lambda t: t[:2]).to_json()
    assert report["scores_version"] == SCORES_VERSION and report["n_tasks"] == 0
    assert report["groups"] == {} and "fast_p_curve" not in report  # no point is defined
    assert all(value is None for value in report["fast_p"].values())


def test_standard_report_has_the_standard_thresholds_and_one_group_per_level() -> None:
    attempts = [
        an_attempt("L1/a", speedup=2.0),
        an_attempt("L1/b", "incorrect", 9.0),  # incorrect-but-fast
        an_attempt("L2/c", speedup=0.5),  # correct-but-slow
        an_attempt("L2/d", "error", None),
    ]
    report = standard_report(attempts, ["L1/a", "L1/b", "L2/c", "L2/d", "L3/e"],
                             lambda t: t[:2], run="r", baseline="compile")  # fmt: skip
    data = report.to_json()
    assert list(data["fast_p"]) == DEFAULT_P_VALUES.split(",")
    assert data["baseline"] == "compile" and data["by"] == "level"
    groups = data["groups"]
    assert {name: (g["n_tasks"], g["task_ids"]) for name, g in groups.items()} == {
        "L1": (2, ["L1/a", "L1/b"]),
        "L2": (1, ["L2/c", "L2/d"]),  # L2/d: only an error, out of the denominator
        "L3": (1, ["L3/e"]),  # selected, never attempted: a failure
    }
    assert "tasks" not in groups["L1"] and groups["L2"]["excluded"] == {"error": 1}
    # each group is scored as its own run would be (the one per-level implementation)
    alone = score_attempts(attempts[:2], ["L1/a", "L1/b"], p_values=DEFAULT_P_VALUES,
                           baseline="compile").to_json(include_tasks=False)  # fmt: skip
    assert groups["L1"] == {**alone, "run": "r"}


def test_standard_report_reads_speedup_compile_for_the_compile_baseline() -> None:
    attempts = [an_attempt("L1/a", speedup=3.0, speedup_compile=0.9)]
    eager = standard_report(attempts, ["L1/a"], lambda t: "L1").to_json()
    compiled = standard_report(attempts, ["L1/a"], lambda t: "L1", baseline="compile").to_json()
    assert eager["fast_p"]["1"] == 1.0 and compiled["fast_p"]["1"] == 0.0
    assert compiled["groups"]["L1"]["geomean_speedup"]["value"] == pytest.approx(0.9)


@pytest.mark.parametrize(
    ("speedups", "expected"),
    [
        ([], {}),  # nothing scored: no point
        ([None], {0.0: 1.0, 0.05: 0.0}),  # correct without a speedup: fast_0 only
        ([math.nan], {0.0: 1.0, 0.05: 0.0}),
        ([1.0], {0.95: 1.0, 1.0: 0.0, 3.0: 0.0}),  # strict: not fast at p = speedup
        ([2.0, 0.5], {0.0: 1.0, 0.45: 1.0, 0.5: 0.5, 1.95: 0.5, 2.0: 0.0}),
    ],
)
def test_fast_p_curve_on_its_grid(speedups: list, expected: dict) -> None:
    attempts = [an_attempt(f"L1/{i}", speedup=s) for i, s in enumerate(speedups)]
    outcomes = score_attempts(attempts, [a.task_id for a in attempts]).tasks
    curve = dict(fast_p_curve(outcomes))
    if not expected:
        assert curve == {}
        return
    assert len(curve) == round(CURVE_P_MAX / CURVE_P_STEP) + 1
    for p, value in expected.items():
        assert curve[p] == pytest.approx(value), p


def test_fast_p_curve_agrees_with_fast_p_at_the_stored_thresholds() -> None:
    attempts = [an_attempt("L1/a", speedup=1.5), an_attempt("L1/b", speedup=1.0),
                an_attempt("L1/c", "incorrect", 4.0)]  # fmt: skip
    report = standard_report(attempts, ["L1/a", "L1/b", "L1/c"], lambda t: "L1").to_json()
    curve = dict(map(tuple, report["fast_p_curve"]))
    for key, value in report["fast_p"].items():
        assert curve[float(key)] == pytest.approx(value), key


@pytest.mark.parametrize(
    ("claim", "status", "speedup"),
    [
        # not re-run, and the claim did not hold: never counted as claimed
        ({"status_claimed": "correct", "result": "fails"}, "error", None),
        ({"status_claimed": "correct", "result": "not_remeasured"}, "error", None),
        # a failure without source holds as what it claims
        ({"status_claimed": "incorrect", "result": "holds"}, "incorrect", None),
        # re-run: the re-measured figures, whatever was claimed
        (
            {
                "status_claimed": "correct",
                "speedup_claimed": 9.0,
                "status_measured": "correct",
                "speedup_measured": 1.1,
                "result": "fails",
            },
            "correct",
            1.1,
        ),  # fmt: skip
        (
            {"status_claimed": "correct", "status_measured": "not_run", "result": "not_remeasured"},
            "not_run",
            None,
        ),  # fmt: skip
    ],
)
def test_remeasured_attempts(claim: dict, status: str, speedup: float | None) -> None:
    [attempt] = remeasured_attempts([{"task_id": "L1/a", "round": 1, "sample": 2, **claim}])
    assert (attempt.status, attempt.speedup, attempt.round, attempt.sample) == (
        status, speedup, 1, 2)  # fmt: skip
