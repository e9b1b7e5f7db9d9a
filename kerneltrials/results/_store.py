"""The results store: runs and their attempts and scores (``ResultsStore``, ``open_store``)."""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from kerneltrials.results._connection import DB_ENV, now_iso, resolve_db_path
from kerneltrials.results._errors import (
    AttemptExistsError,
    RunExistsError,
    StoreError,
    UnknownRunError,
)
from kerneltrials.results._records import (
    RUN_STATUSES,
    AttemptRecord,
    RunRecord,
    ScoreRecord,
    canonical_json,
    hardware_key,
)
from kerneltrials.results._scoring import insert_scores
from kerneltrials.results._shared import SharedTables
from kerneltrials.verifier.verdict import Verdict, migrate_verdict


def open_store(path: str | os.PathLike[str] | None = None, *, create: bool = True) -> ResultsStore:
    """Open (and create or migrate) the store at ``resolve_db_path(path)``.

    Raises:
        StoreError: ``create`` is False and there is no database at that path.
        SchemaVersionError: the database was written by a newer kerneltrials.
    """
    resolved = resolve_db_path(path)
    if not create and not resolved.is_file():
        raise StoreError(
            f"no results store at {resolved}: pass --db PATH or set {DB_ENV} "
            "(a store is created by `kerneltrials eval`)"
        )
    return ResultsStore(resolved)


class ResultsStore(SharedTables):
    """The results database: runs, attempts, scores, verifications.

    Every write method commits before it returns. Use as a context manager.
    """

    # --- runs ---------------------------------------------------------------------------

    def create_run(
        self,
        *,
        model: str,
        agent: str,
        backend: str,
        profile: str,
        name: str | None = None,
        hardware: dict[str, Any] | None = None,
        harness_version: str = "",
        task_set_version: str = "",
        git_commit: str | None = None,
        hidden_seed: int | None = None,
        config: dict[str, Any] | None = None,
        task_ids: list[str] | None = None,
    ) -> RunRecord:
        """Record a new run (status ``running``); ``name`` defaults to model-agent-time-random.

        Raises:
            RunExistsError: a run with that name exists (use ``--resume`` to continue it).
        """
        name = name or _default_run_name(model, agent)
        hardware = hardware or {}
        row = dict(name=name, model=model, agent=agent, backend=backend, profile=profile,
                   hardware=canonical_json(hardware), hardware_key=hardware_key(hardware),
                   harness_version=harness_version, task_set_version=task_set_version,
                   git_commit=git_commit, hidden_seed=hidden_seed, started_at=now_iso(),
                   config=canonical_json(config or {}),
                   task_ids=canonical_json(list(task_ids or [])))  # fmt: skip
        try:
            with self._write() as connection:
                connection.execute(_insert_sql("runs", row), row)
        except sqlite3.IntegrityError:
            raise RunExistsError(
                f"run {name!r} already exists in {self.path}: pick another --run name, "
                "or pass --resume to continue it"
            ) from None
        return self.get_run(name)

    def get_run(self, name: str) -> RunRecord:
        """The run called ``name``.

        Raises:
            UnknownRunError: no such run (the message lists a few that exist).
        """
        rows = self._query("SELECT * FROM runs WHERE name = ?", (name,))
        if not rows:
            known = [
                r["name"]
                for r in self._query("SELECT name FROM runs ORDER BY started_at DESC LIMIT 5")
            ]
            hint = f" (recent runs: {', '.join(known)})" if known else " (the store has no runs)"
            raise UnknownRunError(
                f"no run named {name!r} in {self.path}{hint}; see `kerneltrials runs list`"
            )
        return RunRecord.from_row(rows[0])

    def list_runs(self) -> list[RunRecord]:
        """Every run, newest first."""
        rows = self._query("SELECT * FROM runs ORDER BY started_at DESC, id DESC")
        return [RunRecord.from_row(row) for row in rows]

    def finish_run(self, run: str | RunRecord, status: str = "finished",
                   reason: str | None = None) -> RunRecord:
        """Mark a run ``finished``, ``stopped`` (e.g. ``--max-cost`` hit) or ``interrupted``
        (a signal), with ``reason`` why it ended early, and stamp its end."""
        if status not in RUN_STATUSES[1:]:
            raise ValueError(f"finish status must be one of {', '.join(RUN_STATUSES[1:])}, "
                             f"not {status!r}")
        record = self._resolve_run(run)
        with self._write() as connection:
            connection.execute(
                "UPDATE runs SET status = ?, ended_at = ?, stop_reason = ? WHERE id = ?",
                (status, now_iso(), reason, record.id),
            )
        return self.get_run(record.name)

    def reopen_run(self, run: str | RunRecord) -> RunRecord:
        """Set a run back to ``running`` (``--resume``); its attempts are kept."""
        record = self._resolve_run(run)
        with self._write() as connection:
            connection.execute(
                "UPDATE runs SET status = 'running', ended_at = NULL, stop_reason = NULL "
                "WHERE id = ?", (record.id,)
            )
        return self.get_run(record.name)

    def set_hidden(self, run: str | RunRecord, hidden: bool = True) -> RunRecord:
        """Mark a run as a test run (``hidden``: left off the leaderboard) or show it again;
        nothing else of the run changes.

        Raises:
            UnknownRunError: no such run.
        """
        record = self._resolve_run(run)
        with self._write() as connection:
            connection.execute("UPDATE runs SET hidden = ? WHERE id = ?", (int(hidden), record.id))
        return self.get_run(record.name)

    def _resolve_run(self, run: str | RunRecord) -> RunRecord:
        return run if isinstance(run, RunRecord) else self.get_run(run)

    # --- attempts -----------------------------------------------------------------------

    def record_attempt(
        self,
        run: str | RunRecord,
        task_id: str,
        verdict: Verdict | Mapping[str, Any],
        *,
        round: int = 0,
        sample: int = 0,
        source: str | None = None,
        timings: dict[str, Any] | None = None,
        prompt_tokens: int = 0,
        completion_tokens: int = 0,
        cost_usd: float | None = None,
        transcript: list[Any] | None = None,
        replace: bool = False,
    ) -> AttemptRecord:
        """Commit one verdict the moment it exists.

        Args:
            verdict: a ``Verdict``, or its JSON form (validated; older schema versions
                migrated by ``migrate_verdict``).
            replace: overwrite an attempt with the same key (e.g. retrying an ``error``).

        Raises:
            AttemptExistsError: the key is taken and ``replace`` is False.
        """
        record = self._resolve_run(run)
        data = _verdict_dict(verdict)
        row = dict(run_id=record.id, task_id=task_id, round=round, sample=sample,
                   source=source, verdict=canonical_json(data), status=data["status"],
                   speedup=data.get("speedup"), speedup_compile=data.get("speedup_compile"),
                   timings=canonical_json(timings or {}), prompt_tokens=prompt_tokens,
                   completion_tokens=completion_tokens, cost_usd=cost_usd,
                   transcript=json.dumps(transcript or []), created_at=now_iso())  # fmt: skip
        try:
            with self._write() as connection:
                connection.execute(_insert_sql("attempts", row) + (_UPSERT if replace else ""), row)
        except sqlite3.IntegrityError:
            raise AttemptExistsError(
                f"run {record.name!r} already has an attempt for {task_id} round {round} "
                f"sample {sample}: skip finished keys (see finished_keys) or pass replace=True"
            ) from None
        rows = self._query(
            "SELECT * FROM attempts WHERE run_id = ? AND task_id = ? AND round = ? AND sample = ?",
            (record.id, task_id, round, sample),
        )
        return AttemptRecord.from_row(rows[0])

    def attempts_for_run(self, run: str | RunRecord) -> list[AttemptRecord]:
        """A run's attempts, ordered by task, sample, round."""
        record = self._resolve_run(run)
        rows = self._query(
            "SELECT * FROM attempts WHERE run_id = ? ORDER BY task_id, sample, round", (record.id,)
        )
        return [AttemptRecord.from_row(row) for row in rows]

    def attempts_for_task(self, task_id: str) -> list[AttemptRecord]:
        """One task's attempts across every run (the leaderboard's per-task view)."""
        rows = self._query(
            "SELECT * FROM attempts WHERE task_id = ? ORDER BY run_id, sample, round", (task_id,)
        )
        return [AttemptRecord.from_row(row) for row in rows]

    def status_counts(self) -> dict[str, dict[str, int]]:
        """run name -> {status: number of attempts}, for every run (one query)."""
        counts: dict[str, dict[str, int]] = {}
        for row in self._query(
            "SELECT runs.name, attempts.status, count(*) FROM attempts "
            "JOIN runs ON runs.id = attempts.run_id GROUP BY runs.name, attempts.status"
        ):
            counts.setdefault(row[0], {})[row[1]] = row[2]
        return counts

    def finished_keys(
        self, run: str | RunRecord, *, include_excluded: bool = True
    ) -> set[tuple[str, int, int]]:
        """(task_id, round, sample) of stored attempts: what ``--resume`` skips.

        With ``include_excluded=False`` attempts that ended ``error``/``not_run`` are not
        finished, so a resume retries them (record them again with ``replace=True``).
        """
        record = self._resolve_run(run)
        sql = "SELECT task_id, round, sample FROM attempts WHERE run_id = ?"
        if not include_excluded:
            sql += " AND status NOT IN ('error', 'not_run')"
        return {(r[0], r[1], r[2]) for r in self._query(sql, (record.id,))}

    # --- episodes -----------------------------------------------------------------------

    def mark_episode_finished(self, run: str | RunRecord, task_id: str) -> None:
        """Record that ``task_id``'s agent session ended (``--resume`` skips it)."""
        record = self._resolve_run(run)
        with self._write() as connection:
            connection.execute(
                "INSERT OR REPLACE INTO episodes (run_id, task_id, finished_at) VALUES (?, ?, ?)",
                (record.id, task_id, now_iso()),
            )

    def finished_episodes(self, run: str | RunRecord) -> set[str]:
        """Task ids whose agent session finished in ``run``."""
        record = self._resolve_run(run)
        rows = self._query("SELECT task_id FROM episodes WHERE run_id = ?", (record.id,))
        return {row[0] for row in rows}

    # --- scores -------------------------------------------------------------------------

    def save_score(self, run: str | RunRecord, report: dict[str, Any]) -> ScoreRecord:
        """Store a ``ScoreReport.to_json()`` (one per run and baseline; replaces the old one).

        What the leaderboard shows is ``scoring.standard_report`` (``save_run_scores``
        stores it); its ``scores_version`` is kept as the record's version.
        """
        record = self._resolve_run(run)
        baseline = str(report.get("baseline", "eager"))
        with self._write() as connection:
            insert_scores(connection, "scores", ("run_id", record.id), {baseline: report},
                          now_iso())  # fmt: skip
        return next(s for s in self.load_scores(record) if s.baseline == baseline)

    def load_scores(self, run: str | RunRecord) -> list[ScoreRecord]:
        """The stored score reports of a run (at most one per baseline)."""
        record = self._resolve_run(run)
        rows = self._query("SELECT * FROM scores WHERE run_id = ? ORDER BY baseline", (record.id,))
        return [ScoreRecord.from_row(row) for row in rows]


def _default_run_name(model: str, agent: str) -> str:
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    safe = "-".join(part.replace("/", "_").replace(":", "_") for part in (model, agent))
    return f"{safe}-{stamp}-{secrets.token_hex(2)}"


def _insert_sql(table: str, row: dict[str, Any]) -> str:
    """``INSERT INTO table (a, b) VALUES (:a, :b)`` for a row of named values."""
    return f"INSERT INTO {table} ({', '.join(row)}) VALUES ({', '.join(':' + k for k in row)})"


_UPSERT = (
    " ON CONFLICT (run_id, task_id, round, sample) DO UPDATE SET source = excluded.source, "
    "verdict = excluded.verdict, status = excluded.status, speedup = excluded.speedup, "
    "speedup_compile = excluded.speedup_compile, timings = excluded.timings, "
    "prompt_tokens = excluded.prompt_tokens, completion_tokens = excluded.completion_tokens, "
    "cost_usd = excluded.cost_usd, transcript = excluded.transcript, "
    "created_at = excluded.created_at"
)


def _verdict_dict(verdict: Verdict | Mapping[str, Any]) -> dict[str, Any]:
    """A verdict (model or JSON) as validated JSON data in the current schema."""
    model = verdict if isinstance(verdict, Verdict) else migrate_verdict(dict(verdict))
    return model.to_dict()
