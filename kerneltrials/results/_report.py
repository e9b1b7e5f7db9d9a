"""Score a stored run: the store's attempts through the pure functions of ``scoring.py``.

The Python API behind ``kerneltrials score``; every CLI option is a keyword here. What is
stored is always the standard report (``scoring.standard_report``: standard thresholds and
seed, per level), whatever view of the scores was asked for.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from kerneltrials.results._records import RunRecord, ScoreRecord
from kerneltrials.results._scoring import standard_scores, task_groups
from kerneltrials.results._store import ResultsStore
from kerneltrials.scoring import (
    BOOTSTRAP_SEED,
    DEFAULT_P_VALUES,
    ScoreReport,
    score_attempts,
    score_by_group,
)


def save_run_scores(store: ResultsStore, run: str | RunRecord) -> dict[str, ScoreRecord]:
    """Compute a run's standard scores (both baselines) and store them: what ``eval``
    does when a run finishes.

    Raises:
        UnknownRunError: no such run.
    """
    record = run if isinstance(run, RunRecord) else store.get_run(run)
    reports = standard_scores(store.attempts_for_run(record), record.task_ids, record.name)
    return {baseline: store.save_score(record, report) for baseline, report in reports.items()}


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
        save: store this baseline's standard report (``scoring.standard_report``) for the
            leaderboard to read; the report returned is the one asked for.

    Raises:
        UnknownRunError: no such run. ValueError: bad ``p_values``/``baseline``/``by``.
    """
    record = store.get_run(run)
    attempts = store.attempts_for_run(record)
    options = dict(run=record.name, p_values=p_values, baseline=baseline, seed=seed)
    report = score_attempts(attempts, record.task_ids, **options)  # type: ignore[arg-type]
    if by is not None:
        groups = score_by_group(attempts, record.task_ids, task_groups(by), **options)
        report = dataclasses.replace(report, by=by, groups=groups)
    if save:
        standard = standard_scores(attempts, record.task_ids, record.name)[baseline]
        store.save_score(record, standard)
    return report
