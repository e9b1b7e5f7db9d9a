"""Main-table rows from STORED score reports: one row per run and scope (all tasks, or
one level), ranked per scope with the verified runs first.

Nothing is scored here, and nothing here imports ``kerneltrials.scoring`` (a test checks):
a whole-run row shows the stored report's fast_p and geomean interval, a level's row the
stored report's group for that level (``scoring.standard_report`` computes both when the
results layer stores them), and the best attempt per task is the stored report's own
choice. A run without a stored report, or a level its report has no group for, is shown
as "not scored". Ranks only order the stored intervals, and only among comparable rows:
the same scope, profile, task-set version and task selection (``comparable_key``). Per
scope and profile, the group with the most tasks is the main table; every other group (a partial or
smaller run) is ranked among itself and shown apart; runs of different profiles (cpu,
gpu) are ranked separately. A row over no task is never ranked.
A baseline the run did not measure (``eval --no-compile-baseline``) has no score ("–"),
not a stored 0%. See docs/design/leaderboard.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from kerneltrials.leaderboard._bundle import BundleAttempt
from kerneltrials.leaderboard._collect import SiteRun
from kerneltrials.results import TaskOutcome, level_of_task_id, stored_outcomes

#: the fast_p columns of the main table: (label as stored, p)
P_COLUMNS: tuple[tuple[str, float], ...] = (("0", 0.0), ("1", 1.0), ("1.5", 1.5), ("2", 2.0))
ALL_SCOPE = "all"
NO_LEVEL = "(no level)"


@dataclass(frozen=True)
class ScopeScore:
    """One run's stored scores over one scope against one baseline."""

    fast_p: dict[str, float | None]  # P_COLUMNS label -> fraction (None: not stored)
    geomean: float | None
    ci95: tuple[float, float] | None
    n_tasks: int  # the denominator
    outcomes: tuple[TaskOutcome, ...]  # the stored per-task best outcomes in this scope
    fast_p_curve: tuple[tuple[float, float], ...] = ()  # stored (p, fast_p) for the plot


@dataclass(frozen=True)
class BoardRow:
    """One row of the main table."""

    run: SiteRun
    scope: str  # "all" or a level ("L1")
    eager: ScopeScore | None  # None: the run has no stored score for this baseline/scope
    compile: ScopeScore | None
    rank: int | None  # None: not scored, or over no task
    cost_per_task_usd: float | None
    tokens_per_task: float | None
    group: str = ""  # comparable_key: rows rank only against rows with the same group
    main: bool = True  # the row's group is its scope's main (largest) task set
    cost_usd: float | None = None  # the whole scope's spend (None: no attempt)
    tokens: int | None = None  # prompt + completion tokens over the scope

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
    """The level a task id names (for a run whose stored report does not say)."""
    return level_of_task_id(task_id) or NO_LEVEL


def task_levels(run: SiteRun) -> dict[str, str]:
    """task id -> its level, as the run's stored report groups it (the task metadata at
    scoring time), else as its id names it."""
    tasks = {*run.bundle.run.task_ids, *(a.task_id for a in run.bundle.attempts)}
    levels = {task: level_of(task) for task in tasks}
    report = run.bundle.scores.get("eager") or {}
    if report.get("by") == "level":
        for level, group in (report.get("groups") or {}).items():
            levels.update({str(task): str(level) for task in group.get("task_ids", [])})
    return levels


def scope_score(stored: dict[str, Any], outcomes: Sequence[TaskOutcome]) -> ScopeScore:
    """A stored report (or a stored group of one) as a table cell group; reads only."""
    stored_fast = stored.get("fast_p") or {}
    interval = stored.get("geomean_speedup") or {}
    ci = interval.get("ci95")
    return ScopeScore(
        fast_p={label: stored_fast.get(label) for label, _ in P_COLUMNS},
        geomean=interval.get("value"),
        ci95=(float(ci[0]), float(ci[1])) if ci else None,
        n_tasks=int(stored.get("n_tasks", 0)),
        outcomes=tuple(outcomes),
        fast_p_curve=tuple((float(p), float(v)) for p, v in stored.get("fast_p_curve") or ()),
    )


def run_scopes(run: SiteRun) -> list[str]:
    """``["all", "L1", "L2", ...]``: the scopes a run has rows for."""
    return [ALL_SCOPE, *sorted(set(task_levels(run).values()))]


def _baseline_score(run: SiteRun, baseline: str, scope: str) -> ScopeScore | None:
    report = run.bundle.scores.get(baseline)
    if report is None:
        return None
    outcomes = stored_outcomes(report)
    if scope == ALL_SCOPE:
        return scope_score(report, outcomes)
    group = (report.get("groups") or {}).get(scope) if report.get("by") == "level" else None
    if group is None:
        return None  # this level was not scored when the report was stored
    members = set(group.get("task_ids") or [o.task_id for o in outcomes
                                             if level_of(o.task_id) == scope])  # fmt: skip
    return scope_score(group, [o for o in outcomes if o.task_id in members])


def _measured(attempts: Sequence[BundleAttempt], baseline: str) -> bool:
    """Whether the run measured ``baseline``: for compile, some attempt that has an eager
    speedup also has a compile one (a run without any speedup says nothing either way, so
    its stored report stands)."""
    if baseline != "compile":
        return True
    timed = [a for a in attempts if a.speedup is not None]
    return not timed or any(a.speedup_compile is not None for a in timed)


def comparable_key(run: SiteRun, scope: str, levels: dict[str, str]) -> str:
    """Rows with equal keys were scored over the same tasks under the same measurement
    profile, and are all finished or all partial (stopped, interrupted, still running):
    only those are ranked against each other."""
    bundle_run = run.bundle.run
    tasks = sorted(task for task in bundle_run.task_ids
                   if scope == ALL_SCOPE or levels.get(task) == scope)  # fmt: skip
    state = "finished" if bundle_run.status == "finished" else "partial"
    return "|".join([scope, bundle_run.profile, bundle_run.task_set_version, state,
                     ",".join(tasks)])  # fmt: skip


def _per_task(attempts: Sequence[BundleAttempt]) -> tuple[float | None, float | None]:
    tasks = {a.task_id for a in attempts}
    if not tasks:
        return None, None
    cost = sum(a.cost_usd or 0.0 for a in attempts) / len(tasks)
    tokens = sum(a.prompt_tokens + a.completion_tokens for a in attempts) / len(tasks)
    return cost, tokens


def rank_by_intervals(
    intervals: Sequence[tuple[str, float | None, float | None]],
) -> list[tuple[str, int]]:
    """Ranks that respect confidence intervals.

    A run's rank is 1 + the number of runs whose interval lies entirely above its own
    (their low end > its high end), so overlapping runs share a rank. A run with no
    interval (None bounds: no correct task) lies below every run that has one.

    Returns:
        ``(name, rank)`` pairs, best first (ties by higher upper bound, then name).
    """
    bounds = [
        (name, -math.inf if lo is None else lo, -math.inf if hi is None else hi)
        for name, lo, hi in intervals
    ]
    ranked = [
        (name, 1 + sum(1 for _, other_lo, _ in bounds if other_lo > hi), hi)
        for name, _, hi in bounds
    ]
    ranked.sort(key=lambda item: (item[1], -item[2], item[0]))
    return [(name, rank) for name, rank, _ in ranked]


def verified_first_ranks(rows: Sequence[BoardRow]) -> dict[tuple[str, str], int]:
    """(scope, run slug) -> rank, in two tiers per comparable group (``BoardRow.group``;
    rows built by hand without one group by scope): the verified runs among themselves by
    their intervals, then every other scored run among themselves, below the last verified
    one (rank = 1 + the verified runs + the unverified runs whose interval lies above), so
    no unverified claim outranks a verified result. Rows over no task get no rank."""
    ranks: dict[tuple[str, str], int] = {}
    for group in dict.fromkeys(row.group or row.scope for row in rows):
        offset = 0
        for verified in (True, False):
            tier = [row for row in rows
                    if (row.group or row.scope) == group and row.eager is not None
                    and row.eager.n_tasks > 0 and row.run.is_verified == verified]  # fmt: skip
            scope_of = {row.run.slug: row.scope for row in tier}  # one group, one scope
            intervals = [(row.run.slug, *((row.eager.ci95 if row.eager else None) or (None, None)))
                         for row in tier]  # fmt: skip
            ranks.update({(scope_of[slug], slug): offset + rank
                          for slug, rank in rank_by_intervals(intervals)})  # fmt: skip
            offset += len(tier)
    return ranks


def board_rows(runs: Sequence[SiteRun]) -> list[BoardRow]:
    """Every (run, scope) row, ranked within its comparable group by the eager geomean
    interval, verified runs first (``verified_first_ranks``); ``main`` marks the rows of
    each scope's and profile's largest finished task selection (``_main_groups``)."""
    unranked: list[BoardRow] = []
    for run in runs:
        levels = task_levels(run)
        for scope in run_scopes(run):
            attempts = [a for a in run.bundle.attempts
                        if scope == ALL_SCOPE or levels[a.task_id] == scope]  # fmt: skip
            cost, tokens = _per_task(attempts)
            compile_score = (_baseline_score(run, "compile", scope)
                             if _measured(attempts, "compile") else None)  # fmt: skip
            unranked.append(BoardRow(
                run, scope, _baseline_score(run, "eager", scope), compile_score, None, cost,
                tokens, group=comparable_key(run, scope, levels),
                cost_usd=sum(a.cost_usd or 0.0 for a in attempts) if attempts else None,
                tokens=sum(a.prompt_tokens + a.completion_tokens for a in attempts) if attempts else None))  # fmt: skip
    ranks = verified_first_ranks(unranked)
    main_groups = _main_groups(unranked)
    # an unscored row has no figures to compare: it stays listed (unranked) with the main rows
    rows = [replace(row, rank=ranks.get((row.scope, row.run.slug)),
                    main=row.eager is None or row.group in main_groups)
            for row in unranked]  # fmt: skip
    # the main rows of every profile by rank together; each other group after them, apart
    return sorted(rows, key=lambda r: (r.scope != ALL_SCOPE, r.scope, not r.main,
                                       "" if r.main else r.group, r.rank or 10**9, r.run.name))  # fmt: skip


def _main_groups(rows: Sequence[BoardRow]) -> set[str]:
    """The comparable groups shown in the main table: per scope and profile, the largest
    finished task selection (ties: the group with more runs, then its key)."""
    sizes: dict[tuple[str, str], dict[str, tuple[int, int]]] = {}
    for row in rows:
        if row.eager is None:
            continue
        groups = sizes.setdefault((row.scope, row.run.bundle.run.profile), {})
        size, count = groups.get(row.group, (0, 0))
        groups[row.group] = (max(size, row.eager.n_tasks), count + 1)
    return {max(groups, key=lambda g: ("|finished|" in g, *groups[g], g))
            for groups in sizes.values()}  # fmt: skip
