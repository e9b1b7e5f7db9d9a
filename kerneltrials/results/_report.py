"""Score a stored run: the store's attempts through the pure functions of ``scoring.py``.

The Python API behind ``kerneltrials score``; every CLI option is a keyword here.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence

from kerneltrials.results._store import ResultsStore
from kerneltrials.scoring import (
    BOOTSTRAP_SEED,
    DEFAULT_P_VALUES,
    ScoreReport,
    score_attempts,
    score_by_group,
)

GROUPINGS = ("level", "tag")
_LEVEL_IN_ID = re.compile(r"(?:^|/)L(\d+)/")


def level_of_task_id(task_id: str) -> str | None:
    """``"L2"`` for ``L2/foo`` or ``kb/L2/19_x``; None when the id shows no level."""
    match = _LEVEL_IN_ID.search(task_id)
    return f"L{match.group(1)}" if match else None


def task_groups(by: str) -> Callable[[str], list[str]]:
    """task id -> its groups: ``["L1"]`` by level, its tags by tag.

    Metadata comes from ``kerneltrials.tasks.load_task``; an id it cannot resolve (a task
    deleted since the run) falls back to the level in the id, or ``(unknown)``.
    """
    if by not in GROUPINGS:
        raise ValueError(f"--by must be one of {', '.join(GROUPINGS)}, not {by!r}")
    from kerneltrials.tasks import TaskError, load_task

    def groups_of(task_id: str) -> list[str]:
        try:
            spec = load_task(task_id)
        except TaskError:
            level = level_of_task_id(task_id)
            return [level] if by == "level" and level else ["(unknown)"]
        if by == "level":
            return [f"L{spec.level}" if spec.level is not None else "(no level)"]
        return list(spec.tags) or ["(untagged)"]

    return groups_of


def score_run(
    store: ResultsStore,
    run: str,
    *,
    p_values: Sequence[tuple[str, float]] | str = DEFAULT_P_VALUES,
    baseline: str = "eager",
    by: str | None = None,
    seed: int = BOOTSTRAP_SEED,
    save: bool = False,
) -> ScoreReport:
    """Score run ``run`` over its task selection (see ``kerneltrials.scoring``).

    Args:
        by: also score per ``level`` or per ``tag`` (``report.groups``).
        seed: the bootstrap seed of the geomean interval.
        save: store the report (``save_score``) for the leaderboard to read.

    Raises:
        UnknownRunError: no such run. ValueError: bad ``p_values``/``baseline``/``by``.
    """
    record = store.get_run(run)
    attempts = store.attempts_for_run(record)
    report = score_attempts(
        attempts, record.task_ids, run=record.name, p_values=p_values, baseline=baseline, seed=seed
    )
    if by is not None:
        groups = score_by_group(
            attempts,
            record.task_ids,
            task_groups(by),
            run=record.name,
            p_values=p_values,
            baseline=baseline,
            seed=seed,
        )
        report = dataclasses.replace(report, by=by, groups=groups)
    if save:
        store.save_score(record, report.to_json())
    return report
