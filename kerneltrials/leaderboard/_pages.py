"""Page models: what each page of the site shows, computed from the collected runs.

Templates only format these; they hold no logic beyond loops and conditionals.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kerneltrials.leaderboard._bundle import BundleAttempt
from kerneltrials.leaderboard._collect import SiteRun, slugify
from kerneltrials.leaderboard._plots import Series, fast_p_svg, speedup_svg
from kerneltrials.leaderboard._scores import ALL_SCOPE, BoardRow, board_rows, task_levels
from kerneltrials.results import TaskOutcome, stored_outcomes


@dataclass(frozen=True)
class TaskLine:
    """One task of a run: its stored best outcomes and its attempts."""

    task_id: str
    slug: str
    level: str
    eager: TaskOutcome | None  # None: the run has no stored eager score
    compile: TaskOutcome | None
    attempts: tuple[BundleAttempt, ...]

    @property
    def statuses(self) -> str:
        return ", ".join(a.status for a in self.attempts) or "no attempt"


@dataclass(frozen=True)
class BestKernel:
    """A run's best attempt at one task (the per-task view across runs)."""

    run: SiteRun
    outcome: TaskOutcome | None  # the stored best outcome (eager)
    attempt: BundleAttempt | None  # the attempt the stored outcome refers to

    @property
    def sort_key(self) -> tuple[bool, int, float]:
        """Verified runs' kernels first, then correct before failed, then faster first."""
        if self.outcome is None or self.outcome.status is None:
            return (self.run.is_verified, 0, 0.0)
        return (self.run.is_verified, 2 if self.outcome.is_correct else 1,
                self.outcome.speedup or 0.0)  # fmt: skip


@dataclass(frozen=True)
class TaskPage:
    task_id: str
    slug: str
    level: str
    best: tuple[BestKernel, ...]  # best first


def task_slug(task_id: str) -> str:
    return slugify(task_id)


def plot_series(rows: Sequence[BoardRow]) -> list[Series]:
    """The whole-run, scored rows as plot series (in table order)."""
    return [Series(row.run.slug, row.run.name, row.eager.outcomes, row.eager.geomean, row.eager.ci95,
                   row.eager.fast_p_curve)
            for row in rows if row.scope == ALL_SCOPE and row.eager is not None]  # fmt: skip


def filter_values(rows: Sequence[BoardRow]) -> dict[str, list[str]]:
    """The choices of each filter of the main table."""
    return {
        "level": sorted({row.scope for row in rows if row.scope != ALL_SCOPE}),
        "backend": sorted({row.run.bundle.run.backend for row in rows}),
        "hardware": sorted({row.hardware for row in rows}),
        "agent": sorted({row.run.bundle.run.agent for row in rows}),
    }


def task_lines(run: SiteRun) -> list[TaskLine]:
    """Every task of the run (selected or attempted), with its stored best outcomes."""
    stored = {baseline: {o.task_id: o for o in stored_outcomes(report)}
              for baseline, report in run.bundle.scores.items()}  # fmt: skip
    by_task: dict[str, list[BundleAttempt]] = {t: [] for t in run.bundle.run.task_ids}
    for attempt in run.bundle.attempts:
        by_task.setdefault(attempt.task_id, []).append(attempt)
    levels = task_levels(run)
    return [TaskLine(task, task_slug(task), levels[task], stored.get("eager", {}).get(task),
                     stored.get("compile", {}).get(task), tuple(attempts))
            for task, attempts in sorted(by_task.items())]  # fmt: skip


def best_attempt(
    attempts: Sequence[BundleAttempt], outcome: TaskOutcome | None
) -> BundleAttempt | None:
    """The attempt a stored best outcome refers to (same status and eager speedup)."""
    if outcome is None or outcome.status is None:
        return attempts[0] if attempts else None
    for attempt in attempts:
        if attempt.status == outcome.status and (not outcome.is_correct
                                                 or attempt.speedup == outcome.speedup):  # fmt: skip
            return attempt
    return attempts[0] if attempts else None


def task_pages(runs: Sequence[SiteRun]) -> list[TaskPage]:
    """One page per task attempted by any run: each run's best kernel, best first."""
    best: dict[str, list[BestKernel]] = {}
    levels: dict[str, str] = {}
    for run in runs:
        for line in task_lines(run):
            if line.attempts:
                kernel = BestKernel(run, line.eager, best_attempt(line.attempts, line.eager))
                best.setdefault(line.task_id, []).append(kernel)
                levels.setdefault(line.task_id, line.level)
    return [TaskPage(task, task_slug(task), levels[task],
                     tuple(sorted(kernels, key=lambda k: k.sort_key, reverse=True)))
            for task, kernels in sorted(best.items())]  # fmt: skip


@dataclass(frozen=True)
class IndexPage:
    rows: tuple[BoardRow, ...]
    filters: dict[str, list[str]]
    fast_p_plot: str  # SVG
    speedup_plot: str  # SVG
    unscored: tuple[SiteRun, ...]
    other_rows: int = 0  # whole-task-set rows outside the main comparable group
    last_updated: str = ""  # the newest run's end (or start), "YYYY-MM-DD HH:MM UTC"


def last_updated(runs: Sequence[SiteRun]) -> str:
    """When the newest result on the board was recorded ("" for an empty board)."""
    stamps = [run.bundle.run.ended_at or run.bundle.run.started_at for run in runs]
    newest = max((stamp for stamp in stamps if stamp), default="")
    return f"{newest[:10]} {newest[11:16]} UTC" if len(newest) >= 16 else newest


def index_page(runs: Sequence[SiteRun]) -> IndexPage:
    rows = board_rows(runs)
    series = plot_series([row for row in rows if row.main])
    unscored = tuple(row.run for row in rows if row.scope == ALL_SCOPE and row.eager is None)
    other = sum(1 for row in rows if row.scope == ALL_SCOPE and not row.main)
    return IndexPage(tuple(rows), filter_values(rows), fast_p_svg(series), speedup_svg(series),
                     unscored, other, last_updated(runs))  # fmt: skip


def run_plot(row: BoardRow | None) -> str:
    """The run page's speedup distribution ("" when the run is not scored)."""
    return speedup_svg(plot_series([row])) if row is not None and row.eager is not None else ""
