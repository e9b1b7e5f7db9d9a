"""Scoring: fast_p, geometric-mean speedup with a bootstrap interval, pass@k — pure functions.

Inputs are verdict-like records (anything with the attributes of :class:`Scorable`: the
store's ``AttemptRecord`` or :class:`ScoredAttempt`); outputs are numbers and tables. No I/O.

The rules (docs/design/interfaces.md, "fast_p"; decided here where it is silent):

- The denominator is the task set selected for the run; a selected task with no attempt
  counts as a failure. Tasks that were attempted but not selected are scored too.
- A task's verdict is its **best attempt** over all rounds and samples (so with several
  samples fast_p is "best of k"): a correct attempt beats any other, a higher speedup
  beats a lower one, a candidate failure beats an excluded verdict. The best attempt is
  chosen per baseline, since eager and ``torch.compile`` may prefer different kernels.
- ``error`` and ``not_run`` verdicts are excluded and counted in ``excluded`` (per verdict);
  a task whose only verdicts are excluded leaves the denominator (``excluded_tasks``).
- A ``suspicious`` verdict (a speedup flagged as implausible, see the verifier's speed
  checks) never counts in the headline fast_p until it is re-verified: it is correct (it
  counts in fast_0) but its speedup is not used, so it is fast at no p > 0 and stays out
  of the geomean; a run's verified figures come from ``kerneltrials verify``'s
  re-measurement instead.
- A task is fast at p iff its verdict is ``correct`` and ``speedup > p`` (strict: a
  speedup exactly equal to p is not fast). A speedup is a ratio of positive times, so
  fast_0 is the correctness rate; a correct verdict without a usable speedup (None, NaN,
  inf, <= 0) counts as correct but not fast for any p > 0 and is left out of the geomean.
- With no task left in the denominator every rate is ``None`` (undefined), never 0.
- Tokens and cost sum over all attempts, excluded ones included (they were paid for);
  ``per_task`` values divide by the number of tasks with at least one attempt.

What is stored (``standard_report``, written by the results layer when a run finishes and
read by the leaderboard, which never re-scores): per baseline, fast_p at
``DEFAULT_P_VALUES``, the geomean with its interval (seed ``BOOTSTRAP_SEED``), pass@k,
the excluded counts, the per-task best outcomes, the fast_p curve the site plots, and the
same per level (each level's ``task_ids`` included); ``SCORES_VERSION`` names that layout.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from kerneltrials.verifier.verdict import EXCLUDED_STATUSES

# The verdict model's excluded statuses as plain strings; importing the verdict module
# loads pydantic only (the verifier package imports torch lazily).
EXCLUDED = frozenset(status.value for status in EXCLUDED_STATUSES)
BASELINES = ("eager", "compile")
DEFAULT_P_VALUES = "0,0.8,1,1.5,2"
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0
#: the layout of a stored score report (``standard_report``): bumped when it changes,
#: together with the store's schema version and a migration that re-scores
SCORES_VERSION = 2
#: the fast_p curve stored for the site's plot: p from 0 to CURVE_P_MAX in CURVE_P_STEP
CURVE_P_MAX = 3.0
CURVE_P_STEP = 0.05


class Scorable(Protocol):
    """What scoring reads from one attempt (the store's ``AttemptRecord`` satisfies it)."""

    @property
    def task_id(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def speedup(self) -> float | None: ...
    @property
    def speedup_compile(self) -> float | None: ...
    @property
    def suspicious(self) -> bool: ...
    @property
    def sample(self) -> int: ...
    @property
    def prompt_tokens(self) -> int: ...
    @property
    def completion_tokens(self) -> int: ...
    @property
    def cost_usd(self) -> float | None: ...


@dataclass(frozen=True)
class ScoredAttempt:
    """A minimal verdict-like record, for callers that do not hold store records."""

    task_id: str
    status: str
    speedup: float | None = None
    speedup_compile: float | None = None
    suspicious: bool = False
    sample: int = 0
    round: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = 0.0


@dataclass(frozen=True)
class TaskOutcome:
    """One task's best attempt under a baseline (``status`` None: no attempt at all)."""

    task_id: str
    status: str | None
    speedup: float | None  # the usable speedup against the chosen baseline, else None
    n_attempts: int

    @property
    def is_correct(self) -> bool:
        return self.status == "correct"

    @property
    def is_excluded(self) -> bool:
        return self.status in EXCLUDED


@dataclass(frozen=True)
class Interval:
    """A point estimate with its bootstrap 95% interval (None when there is no data)."""

    value: float | None
    ci95: tuple[float, float] | None
    n: int  # how many values it was computed from

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "ci95": list(self.ci95) if self.ci95 else None, "n": self.n}


def parse_p_values(text: str) -> list[tuple[str, float]]:
    """``"0,1,1.5"`` -> ``[("0", 0.0), ("1", 1.0), ("1.5", 1.5)]``, keeping the user's spelling.

    Raises:
        ValueError: an entry is not a finite number >= 0.
    """
    values = []
    for raw in text.split(","):
        key = raw.strip()
        try:
            p = float(key)
        except ValueError:
            raise ValueError(f"--p: {key!r} is not a number (expected e.g. 0,1,1.5)") from None
        if not math.isfinite(p) or p < 0:
            raise ValueError(f"--p: {key!r} must be a finite number >= 0")
        values.append((key, p))
    return values


def usable_speedup(value: float | None) -> float | None:
    """The speedup if it is a finite positive number, else None."""
    if value is None or not math.isfinite(value) or value <= 0:
        return None
    return float(value)


def _speedup_for(attempt: Scorable, baseline: str) -> float | None:
    if baseline not in BASELINES:
        raise ValueError(f"baseline must be one of {', '.join(BASELINES)}, not {baseline!r}")
    if attempt.suspicious:  # not counted until re-verified (see the module docstring)
        return None
    raw = attempt.speedup_compile if baseline == "compile" else attempt.speedup
    return usable_speedup(raw)


def _rank(attempt: Scorable, baseline: str) -> tuple[int, float]:
    """Sort key for "best attempt": correct > candidate failure > excluded, then speedup."""
    if attempt.status == "correct":
        speedup = _speedup_for(attempt, baseline)
        return (2, speedup if speedup is not None else -math.inf)
    return (0 if attempt.status in EXCLUDED else 1, -math.inf)


def best_outcomes(
    attempts: Iterable[Scorable], task_ids: Sequence[str] = (), baseline: str = "eager"
) -> list[TaskOutcome]:
    """Each task's best attempt; selected tasks with no attempt get ``status=None``."""
    by_task: dict[str, list[Scorable]] = {task: [] for task in task_ids}
    for attempt in attempts:
        by_task.setdefault(attempt.task_id, []).append(attempt)
    outcomes = []
    for task, task_attempts in by_task.items():
        if not task_attempts:
            outcomes.append(TaskOutcome(task, None, None, 0))
            continue
        best = max(task_attempts, key=lambda a: _rank(a, baseline))
        speedup = _speedup_for(best, baseline) if best.status == "correct" else None
        outcomes.append(TaskOutcome(task, str(best.status), speedup, len(task_attempts)))
    return outcomes


def is_fast(outcome: TaskOutcome, p: float) -> bool:
    """Correct and ``speedup > p`` (strict); at p = 0 every correct verdict is fast."""
    if not outcome.is_correct:
        return False
    if p == 0:
        return True
    return outcome.speedup is not None and outcome.speedup > p


def fast_p(outcomes: Sequence[TaskOutcome], p: float) -> float | None:
    """Fraction of scored (non-excluded) tasks that are fast at p; None if there are none."""
    scored = [o for o in outcomes if not o.is_excluded]
    if not scored:
        return None
    return sum(is_fast(o, p) for o in scored) / len(scored)


def geomean_with_ci(
    speedups: Sequence[float], resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED
) -> Interval:
    """Geometric mean of positive speedups and a percentile-bootstrap 95% interval.

    Tasks are resampled with replacement ``resamples`` times from a generator seeded with
    ``seed``, so the interval is deterministic for a seed.
    """
    logs = np.log(np.asarray([s for s in speedups], dtype=np.float64))
    if logs.size == 0:
        return Interval(None, None, 0)
    value = float(np.exp(logs.mean()))
    rng = np.random.default_rng(seed)
    indices = rng.integers(0, logs.size, size=(resamples, logs.size))  # (resamples, n)
    means = logs[indices].mean(axis=1)  # (resamples,)
    low, high = np.exp(np.percentile(means, [2.5, 97.5]))
    # the percentile of a mean can miss the point by a rounding ulp: keep the point inside
    return Interval(value, (min(float(low), value), max(float(high), value)), int(logs.size))


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from n samples of which c are correct: 1 - C(n-c, k) / C(n, k).

    Raises:
        ValueError: unless 0 <= c <= n and 1 <= k <= n.
    """
    if not (0 <= c <= n) or not (1 <= k <= n):
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n (n={n}, c={c}, k={k})")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def _sample_counts(attempts: Iterable[Scorable]) -> dict[str, tuple[int, int]]:
    """task -> (n samples with a non-excluded verdict, c samples with a correct one)."""
    samples: dict[str, dict[int, bool]] = {}
    for attempt in attempts:
        if attempt.status in EXCLUDED:
            continue
        task = samples.setdefault(attempt.task_id, {})
        task[attempt.sample] = task.get(attempt.sample, False) or attempt.status == "correct"
    return {task: (len(s), sum(s.values())) for task, s in samples.items()}


def pass_at_k_table(
    attempts: Sequence[Scorable], outcomes: Sequence[TaskOutcome]
) -> dict[str, float] | None:
    """Mean pass@k over scored tasks for k = 1, 2, 5, 10, ... up to the fewest samples.

    A sample is correct if any of its rounds is. Applies only when some task has several
    samples; k stops at the smallest sample count among attempted tasks, and a selected
    task with no attempt contributes 0. None when not applicable.
    """
    counts = _sample_counts(attempts)
    scored = [o.task_id for o in outcomes if not o.is_excluded]
    if not counts or max(n for n, _ in counts.values()) < 2 or not scored:
        return None
    fewest = min(n for n, _ in counts.values())
    table = {}
    for k in (1, 2, 5, 10, 20, 50, 100):
        if k > fewest:
            break
        values = [pass_at_k(*counts[t], k) if t in counts else 0.0 for t in scored]
        table[str(k)] = sum(values) / len(values)
    return table


@dataclass(frozen=True)
class ScoreReport:
    """Everything ``kerneltrials score`` reports for one run (or one group of its tasks)."""

    run: str
    baseline: str  # "eager" or "compile" (compile scores speedup_compile)
    n_tasks: int  # the denominator: scored tasks (selected or attempted, minus excluded)
    n_selected: int  # tasks in the run's selection
    missing_tasks: int  # scored tasks with no attempt (counted as failures)
    excluded_tasks: int  # tasks whose only verdicts were error/not_run
    excluded: dict[str, int]  # excluded verdicts by status
    fast_p: dict[str, float | None]  # p as written -> fraction
    correct_rate: float | None
    geomean_speedup: Interval  # over correct tasks with a usable speedup
    pass_at_k: dict[str, float] | None
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    tasks: tuple[TaskOutcome, ...] = ()
    by: str | None = None  # what ``groups`` is keyed by: "level", "tag"
    groups: dict[str, ScoreReport] = field(default_factory=dict)
    fast_p_curve: tuple[tuple[float, float], ...] = ()  # (p, fast_p) for the site's plot

    def per_task(self, total: float) -> float | None:
        attempted = sum(1 for o in self.tasks if o.n_attempts > 0)
        return total / attempted if attempted else None

    def to_json(self, include_tasks: bool = True) -> dict[str, Any]:
        """The JSON object of ``kerneltrials score --json`` (a plain dict)."""
        data: dict[str, Any] = {
            "scores_version": SCORES_VERSION,
            "run": self.run,
            "baseline": self.baseline,
            "n_tasks": self.n_tasks,
            "n_selected": self.n_selected,
            "missing_tasks": self.missing_tasks,
            "excluded_tasks": self.excluded_tasks,
            "excluded": dict(self.excluded),
            "fast_p": dict(self.fast_p),
            "correct_rate": self.correct_rate,
            "geomean_speedup": self.geomean_speedup.to_json(),
            "tokens": {"prompt": self.prompt_tokens, "completion": self.completion_tokens},
            "cost_usd": self.cost_usd,
            "per_task": {
                "prompt_tokens": self.per_task(self.prompt_tokens),
                "completion_tokens": self.per_task(self.completion_tokens),
                "cost_usd": self.per_task(self.cost_usd),
            },
        }
        if self.pass_at_k is not None:
            data["pass_at_k"] = dict(self.pass_at_k)
        if self.fast_p_curve:
            data["fast_p_curve"] = [list(point) for point in self.fast_p_curve]
        if not include_tasks:  # a group: which tasks it holds (their outcomes are above)
            data["task_ids"] = [o.task_id for o in self.tasks]
        else:
            data["tasks"] = [
                {
                    "task": o.task_id,
                    "status": o.status,
                    "speedup": o.speedup,
                    "attempts": o.n_attempts,
                }
                for o in self.tasks
            ]
        if self.by is not None:
            data["by"] = self.by
            data["groups"] = {
                name: report.to_json(include_tasks=False) for name, report in self.groups.items()
            }
        return data


def score_attempts(
    attempts: Sequence[Scorable],
    task_ids: Sequence[str] = (),
    *,
    run: str = "",
    p_values: Sequence[tuple[str, float]] | str = DEFAULT_P_VALUES,
    baseline: str = "eager",
    seed: int = BOOTSTRAP_SEED,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> ScoreReport:
    """Score a run's attempts over its selected ``task_ids`` (see the module docstring)."""
    if isinstance(p_values, str):
        p_values = parse_p_values(p_values)
    outcomes = best_outcomes(attempts, task_ids, baseline)
    scored = [o for o in outcomes if not o.is_excluded]
    excluded: dict[str, int] = {}
    for attempt in attempts:
        if attempt.status in EXCLUDED:
            excluded[str(attempt.status)] = excluded.get(str(attempt.status), 0) + 1
    speedups = [o.speedup for o in scored if o.is_correct and o.speedup is not None]
    return ScoreReport(
        run=run,
        baseline=baseline,
        n_tasks=len(scored),
        n_selected=len(set(task_ids)),
        missing_tasks=sum(1 for o in scored if o.status is None),
        excluded_tasks=len(outcomes) - len(scored),
        excluded=dict(sorted(excluded.items())),
        fast_p={key: fast_p(outcomes, p) for key, p in p_values},
        correct_rate=fast_p(outcomes, 0.0),
        geomean_speedup=geomean_with_ci(speedups, resamples, seed),
        pass_at_k=pass_at_k_table(attempts, outcomes),
        prompt_tokens=sum(a.prompt_tokens or 0 for a in attempts),
        completion_tokens=sum(a.completion_tokens or 0 for a in attempts),
        cost_usd=float(sum(a.cost_usd or 0.0 for a in attempts)),
        tasks=tuple(outcomes),
    )


def score_by_group(
    attempts: Sequence[Scorable],
    task_ids: Sequence[str],
    groups_of: Callable[[str], Iterable[str]],
    **options: Any,
) -> dict[str, ScoreReport]:
    """One report per group; ``groups_of(task_id)`` names a task's groups (a tag task may
    be in several). Each group's denominator is its share of the selection."""
    members: dict[str, list[str]] = {}
    for task in dict.fromkeys([*task_ids, *(a.task_id for a in attempts)]):
        for group in groups_of(task):
            members.setdefault(group, []).append(task)
    reports = {}
    for group in sorted(members):
        tasks = set(members[group])
        selected = [t for t in task_ids if t in tasks]
        group_attempts = [a for a in attempts if a.task_id in tasks]
        reports[group] = score_attempts(group_attempts, selected, **options)
    return reports


def fast_p_curve(outcomes: Sequence[TaskOutcome]) -> tuple[tuple[float, float], ...]:
    """(p, fast_p) for p from 0 to ``CURVE_P_MAX`` in ``CURVE_P_STEP``; empty when no task
    is scored (fast_p undefined)."""
    grid = [round(i * CURVE_P_STEP, 4) for i in range(int(CURVE_P_MAX / CURVE_P_STEP) + 1)]
    points = [(p, fast_p(outcomes, p)) for p in grid]
    return tuple((p, value) for p, value in points if value is not None)


def standard_report(
    attempts: Sequence[Scorable],
    task_ids: Sequence[str],
    level_of: Callable[[str], str],
    *,
    run: str = "",
    baseline: str = "eager",
) -> ScoreReport:
    """The score report that is stored for a run (see the module docstring): the standard
    thresholds and seed, the fast_p curve, and one group per level (``level_of(task_id)``).

    The one implementation of per-level scoring: whatever shows a level's scores reads
    the groups of this report.
    """
    options: dict[str, Any] = {"run": run, "baseline": baseline, "p_values": DEFAULT_P_VALUES}
    report = score_attempts(attempts, task_ids, **options)
    groups = score_by_group(attempts, task_ids, lambda task: [level_of(task)], **options)
    return dataclasses.replace(
        report, by="level", groups=groups, fast_p_curve=fast_p_curve(report.tasks)
    )


def remeasured_attempts(claims: Iterable[dict[str, Any]]) -> list[ScoredAttempt]:
    """A verification's per-attempt outcomes (``ClaimOutcome`` as JSON) as the attempts
    its re-measured scores are computed from: the re-measured status and speedups; an
    attempt that was not re-run counts as what it claims only when that claim held (a
    failure without source), else as ``error``."""
    return [
        ScoredAttempt(
            task_id=str(claim["task_id"]),
            status=str(claim.get("status_measured") or (
                claim.get("status_claimed") if claim.get("result") == "holds" else "error")),
            speedup=claim.get("speedup_measured"),
            speedup_compile=claim.get("speedup_compile_measured"),
            sample=int(claim.get("sample", 0)),
            round=int(claim.get("round", 0)),
        )
        for claim in claims
    ]  # fmt: skip
