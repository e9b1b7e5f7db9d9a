"""The scores the store keeps: a run's standard score reports, and a verification's
re-measured ones, computed once with ``kerneltrials.scoring`` and stored versioned.

They are computed when a run finishes (``save_run_scores``, called by ``eval``), by
``kerneltrials score`` (which stores what it computes), when a verification is recorded,
and once by the schema migration for the runs and verifications of an older store
(``rescore_connection``). Nothing that reads them re-scores. See
docs/design/leaderboard.md, "Scores are stored".
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

from kerneltrials.results._records import AttemptRecord
from kerneltrials.scoring import (
    BASELINES,
    Scorable,
    ScoredAttempt,
    TaskOutcome,
    remeasured_attempts,
    score_attempts,
    standard_report,
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
    from kerneltrials.tasks import TaskError, load_task  # task metadata: only when grouping

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


def standard_scores(
    attempts: Sequence[Scorable], task_ids: Sequence[str], run: str
) -> dict[str, dict[str, Any]]:
    """baseline -> the stored report (``scoring.standard_report`` as JSON), levels from
    the task metadata."""
    by_level = task_groups("level")
    level_of: Callable[[str], str] = lambda task: by_level(task)[0]  # noqa: E731
    return {baseline: standard_report(attempts, task_ids, level_of, run=run,
                                      baseline=baseline).to_json()
            for baseline in BASELINES}  # fmt: skip


def score_verdicts(
    verdicts: Sequence[dict[str, Any]],
    task_ids: Sequence[str],
    *,
    run: str,
    baseline: str,
    p_values: Sequence[tuple[str, float]],
) -> dict[str, Any]:
    """The report the given verdicts (``task_id``, ``status``, ``speedup``,
    ``speedup_compile``, ``sample``, ``round``) give at ``p_values``: what ``verify``
    compares a bundle's claimed scores with."""
    attempts = [ScoredAttempt(task_id=v["task_id"], status=v["status"], speedup=v.get("speedup"),
                              speedup_compile=v.get("speedup_compile"),
                              sample=v.get("sample", 0), round=v.get("round", 0))
                for v in verdicts]  # fmt: skip
    return score_attempts(attempts, task_ids, run=run, p_values=p_values,
                          baseline=baseline).to_json()  # fmt: skip


def stored_outcomes(report: dict[str, Any]) -> list[TaskOutcome]:
    """The per-task best outcomes a stored report lists (``ScoreReport.to_json()["tasks"]``),
    read back without scoring anything."""
    return [TaskOutcome(str(t["task"]), t.get("status"), t.get("speedup"), int(t.get("attempts", 0)))
            for t in report.get("tasks", []) if isinstance(t, dict) and "task" in t]  # fmt: skip


def has_remeasured_attempts(outcome: dict[str, Any]) -> bool:
    """Does a verification outcome list per-attempt re-measurements (``verify`` since
    re-measuring every claim)? Older outcomes have no re-measured scores."""
    claims = outcome.get("attempts")
    return isinstance(claims, list) and all(
        isinstance(c, dict) and "task_id" in c and "status_measured" in c for c in claims
    )


def verification_task_ids(outcome: dict[str, Any], run_task_ids: list[str] | None) -> list[str]:
    """The selection the re-measured scores are over: the run's when known, else the
    tasks the outcome's own re-measured report lists (selected or attempted)."""
    if run_task_ids is not None:
        return list(run_task_ids)
    listed = (outcome.get("remeasured_scores") or {}).get("eager", {}).get("tasks", [])
    return [str(t["task"]) for t in listed if isinstance(t, dict) and "task" in t]


def remeasured_scores(
    outcome: dict[str, Any], task_ids: Sequence[str], run: str
) -> dict[str, dict[str, Any]]:
    """baseline -> the standard report of the RE-MEASURED figures of a verification
    (empty for an outcome without per-attempt re-measurements)."""
    if not has_remeasured_attempts(outcome):
        return {}
    return standard_scores(remeasured_attempts(outcome["attempts"]), task_ids, run)


def insert_scores(
    connection: sqlite3.Connection,
    table: str,
    owner: tuple[str, int],
    reports: dict[str, dict[str, Any]],
    created_at: str,
) -> None:
    """Write (or replace) one row per baseline into ``scores`` or ``verification_scores``;
    ``owner`` is the key column and its value (``("run_id", 3)``)."""
    column, value = owner
    for baseline, report in reports.items():
        connection.execute(
            f"INSERT INTO {table} ({column}, baseline, version, report, created_at) "
            f"VALUES (?, ?, ?, ?, ?) ON CONFLICT ({column}, baseline) DO UPDATE SET "
            "version = excluded.version, report = excluded.report, "
            "created_at = excluded.created_at",
            (value, baseline, int(report.get("scores_version", 0)), json.dumps(report),
             created_at),
        )  # fmt: skip


def rescore_connection(connection: sqlite3.Connection, created_at: str) -> None:
    """Compute and store the scores of every run and every re-measuring verification
    (the migration to a new score layout; inside its transaction)."""
    cursor = connection.cursor()
    cursor.row_factory = sqlite3.Row
    runs = cursor.execute("SELECT id, name, task_ids FROM runs").fetchall()
    selections = {}
    for run in runs:
        rows = cursor.execute(
            "SELECT * FROM attempts WHERE run_id = ? ORDER BY task_id, sample, round", (run["id"],)
        ).fetchall()
        task_ids = json.loads(run["task_ids"] or "[]")
        selections[run["name"]] = task_ids
        reports = standard_scores([AttemptRecord.from_row(r) for r in rows], task_ids, run["name"])
        insert_scores(connection, "scores", ("run_id", run["id"]), reports, created_at)
    for row in cursor.execute("SELECT id, run_name, outcome FROM verifications").fetchall():
        outcome = json.loads(row["outcome"] or "{}")
        task_ids = verification_task_ids(outcome, selections.get(row["run_name"]))
        reports = remeasured_scores(outcome, task_ids, row["run_name"])
        insert_scores(connection, "verification_scores", ("verification_id", row["id"]),
                      reports, created_at)  # fmt: skip
