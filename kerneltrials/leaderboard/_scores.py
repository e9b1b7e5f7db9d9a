"""Main-table rows from STORED score reports: one row per run and scope (all tasks, or
one level), with interval-respecting ranks per scope.

Nothing is re-scored: the best attempt per task and its speedup come from the stored
report's ``tasks`` list (the scorer's own choice). The whole-run row shows the stored
fast_p and geomean; a per-level row aggregates the stored per-task outcomes of that level
with the same pure functions the scorer uses (``scoring.fast_p``, ``geomean_with_ci``).
A run without a stored report is shown as "not scored". See docs/design/leaderboard.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kerneltrials.leaderboard._bundle import BundleAttempt
from kerneltrials.leaderboard._collect import SiteRun
from kerneltrials.results import level_of_task_id
from kerneltrials.scoring import TaskOutcome, fast_p, geomean_with_ci, rank_by_intervals

#: the fast_p columns of the main table: (label as stored, p)
P_COLUMNS: tuple[tuple[str, float], ...] = (("0", 0.0), ("1", 1.0), ("1.5", 1.5), ("2", 2.0))
ALL_SCOPE = "all"
NO_LEVEL = "(no level)"


@dataclass(frozen=True)
class ScopeScore:
    """One run's scores over one scope against one baseline."""

    fast_p: dict[str, float | None]  # P_COLUMNS label -> fraction
    geomean: float | None
    ci95: tuple[float, float] | None
    n_tasks: int  # the denominator
    outcomes: tuple[TaskOutcome, ...]  # the stored per-task best outcomes in this scope


@dataclass(frozen=True)
class BoardRow:
    """One row of the main table."""

    run: SiteRun
    scope: str  # "all" or a level ("L1")
    eager: ScopeScore | None  # None: the run has no stored score for this baseline
    compile: ScopeScore | None
    rank: int | None  # None: not scored
    cost_per_task_usd: float | None
    tokens_per_task: float | None

    @property
    def hardware(self) -> str:
        return hardware_label(self.run.bundle.environment.hardware)


def hardware_label(hardware: dict[str, Any]) -> str:
    """``"NVIDIA H100 (AMD EPYC 9454, 16 cores)"`` or ``"AMD EPYC 9454, 16 cores"``."""
    cpu = str(hardware.get("cpu") or "unknown CPU")
    if hardware.get("cores"):
        cpu += f", {hardware['cores']} cores"
    return f"{hardware['gpu']} ({cpu})" if hardware.get("gpu") else cpu


def level_of(task_id: str) -> str:
    return level_of_task_id(task_id) or NO_LEVEL


def stored_outcomes(report: dict[str, Any]) -> list[TaskOutcome]:
    """The per-task best outcomes a stored ``ScoreReport.to_json()`` lists."""
    return [TaskOutcome(str(t["task"]), t.get("status"), t.get("speedup"), int(t.get("attempts", 0)))
            for t in report.get("tasks", [])]  # fmt: skip


def scope_score(
    outcomes: Sequence[TaskOutcome], stored: dict[str, Any] | None = None
) -> ScopeScore:
    """Aggregate per-task outcomes; values present in ``stored`` (a whole-run report) win."""
    stored = stored or {}
    stored_fast = stored.get("fast_p", {})
    values = {label: stored_fast[label] if label in stored_fast else fast_p(outcomes, p)
              for label, p in P_COLUMNS}  # fmt: skip
    if "geomean_speedup" in stored:
        interval = stored["geomean_speedup"]
        geomean, ci = interval.get("value"), interval.get("ci95")
    else:
        speedups = [o.speedup for o in outcomes
                    if o.is_correct and o.speedup is not None]  # fmt: skip
        computed = geomean_with_ci(speedups)
        geomean, ci = computed.value, computed.ci95
    n_tasks = stored.get("n_tasks", sum(1 for o in outcomes if not o.is_excluded))
    return ScopeScore(values, geomean, tuple(ci) if ci else None, int(n_tasks), tuple(outcomes))  # type: ignore[arg-type]


def run_scopes(run: SiteRun) -> list[str]:
    """``["all", "L1", "L2", ...]``: the scopes a run has rows for."""
    tasks = {*run.bundle.run.task_ids, *(a.task_id for a in run.bundle.attempts)}
    return [ALL_SCOPE, *sorted({level_of(t) for t in tasks})]


def _baseline_score(run: SiteRun, baseline: str, scope: str) -> ScopeScore | None:
    report = run.bundle.scores.get(baseline)
    if report is None:
        return None
    outcomes = stored_outcomes(report)
    if scope == ALL_SCOPE:
        return scope_score(outcomes, report)
    return scope_score([o for o in outcomes if level_of(o.task_id) == scope])


def _per_task(attempts: Sequence[BundleAttempt]) -> tuple[float | None, float | None]:
    tasks = {a.task_id for a in attempts}
    if not tasks:
        return None, None
    cost = sum(a.cost_usd or 0.0 for a in attempts) / len(tasks)
    tokens = sum(a.prompt_tokens + a.completion_tokens for a in attempts) / len(tasks)
    return cost, tokens


def board_rows(runs: Sequence[SiteRun]) -> list[BoardRow]:
    """Every (run, scope) row, ranked within its scope by the eager geomean interval."""
    unranked: list[BoardRow] = []
    for run in runs:
        for scope in run_scopes(run):
            attempts = [a for a in run.bundle.attempts
                        if scope == ALL_SCOPE or level_of(a.task_id) == scope]  # fmt: skip
            cost, tokens = _per_task(attempts)
            unranked.append(BoardRow(run, scope, _baseline_score(run, "eager", scope),
                                     _baseline_score(run, "compile", scope), None, cost, tokens))  # fmt: skip
    ranks: dict[tuple[str, str], int] = {}
    for scope in dict.fromkeys(row.scope for row in unranked):
        scored = [row for row in unranked if row.scope == scope and row.eager is not None]
        intervals = [(row.run.slug, *(row.eager.ci95 or (None, None))) for row in scored]  # type: ignore[union-attr]
        ranks.update({(scope, slug): rank for slug, rank in rank_by_intervals(intervals)})
    rows = [BoardRow(row.run, row.scope, row.eager, row.compile, ranks.get((row.scope, row.run.slug)),
                     row.cost_per_task_usd, row.tokens_per_task) for row in unranked]  # fmt: skip
    return sorted(rows, key=lambda r: (r.scope != ALL_SCOPE, r.scope, r.rank or 10**9, r.run.name))
