"""The store's SQL schema, its version, and the migrations between versions.

A store records its version in ``schema_meta`` (key ``schema_version``). A database with
tables but no ``schema_meta`` is version 0: the draft layout used before the first release
(no hardware key, hidden seed or task selection on runs; no ``speedup_compile`` or
transcript on attempts; no verifications or scores). Opening a store migrates it in one
``BEGIN IMMEDIATE`` transaction, so concurrent openers never see half a migration.
A change to the schema bumps ``SCHEMA_VERSION`` and adds a step to ``MIGRATIONS`` with
a test that opens a database of the old version.

Version 2 stores versioned score reports (``scores.version``) for every run and the
re-measured scores of verifications (``verification_scores``). Its migration computes them
once, for every run and verification of the old store, inside the migration's transaction
(the reports stored by version 1 are derived data and are replaced): the leaderboard then
only reads them, and never scores (docs/design/leaderboard.md, "Scores are stored").

Version 3 adds ``runs.hidden``: a run its owner marked as a test run (``kerneltrials runs
hide``); it stays in the store, and the leaderboard leaves it out.

Version 4 lets a run end ``interrupted`` (a signal stopped ``eval``) and records why any
run stopped (``runs.stop_reason``). A CHECK constraint cannot be altered in SQLite: the
``runs`` table is rebuilt, with foreign keys off for the migration so that dropping the
old table does not cascade into the attempts that refer to it.

Version 5 drops the ``baselines`` table, a cache of baseline timings nothing wrote: a
verdict's baselines are timed beside its candidate, in the same check.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime

from kerneltrials.results._errors import SchemaVersionError
from kerneltrials.results._records import hardware_key
from kerneltrials.results._scoring import rescore_connection

SCHEMA_VERSION = 5

#: the stored score reports (``scoring.standard_report`` as JSON, layout ``version``): a
#: run's, and the re-measured ones of a verification
SCORE_TABLES = """
CREATE TABLE IF NOT EXISTS scores (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    baseline TEXT NOT NULL CHECK (baseline IN ('eager', 'compile')),
    version INTEGER NOT NULL,                     -- scoring.SCORES_VERSION of the report
    report TEXT NOT NULL,                         -- JSON ScoreReport.to_json()
    created_at TEXT NOT NULL,
    UNIQUE (run_id, baseline)
);

CREATE TABLE IF NOT EXISTS verification_scores (
    id INTEGER PRIMARY KEY,
    verification_id INTEGER NOT NULL REFERENCES verifications(id) ON DELETE CASCADE,
    baseline TEXT NOT NULL CHECK (baseline IN ('eager', 'compile')),
    version INTEGER NOT NULL,
    report TEXT NOT NULL,                         -- JSON: the re-measured figures' report
    created_at TEXT NOT NULL,
    UNIQUE (verification_id, baseline)
);
"""

_TABLES = """
CREATE TABLE IF NOT EXISTS schema_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    model TEXT NOT NULL,
    agent TEXT NOT NULL,
    backend TEXT NOT NULL,
    profile TEXT NOT NULL,
    hardware TEXT NOT NULL DEFAULT '{}',          -- JSON fingerprint
    hardware_key TEXT NOT NULL DEFAULT '',        -- sha256 prefix of the fingerprint
    harness_version TEXT NOT NULL DEFAULT '',
    task_set_version TEXT NOT NULL DEFAULT '',
    git_commit TEXT,
    hidden_seed INTEGER,
    started_at TEXT NOT NULL,                     -- ISO 8601 UTC
    ended_at TEXT,
    status TEXT NOT NULL DEFAULT 'running'
        CHECK (status IN ('running', 'finished', 'stopped', 'interrupted')),
    config TEXT NOT NULL DEFAULT '{}',            -- JSON: the eval options
    task_ids TEXT NOT NULL DEFAULT '[]',          -- JSON list: the selection (denominator)
    hidden INTEGER NOT NULL DEFAULT 0,            -- 1: a test run, left off the leaderboard
    stop_reason TEXT                              -- why a stopped or interrupted run ended
);

CREATE TABLE IF NOT EXISTS attempts (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    task_id TEXT NOT NULL,
    round INTEGER NOT NULL DEFAULT 0,
    sample INTEGER NOT NULL DEFAULT 0,
    source TEXT,
    verdict TEXT NOT NULL,                        -- JSON verdict
    status TEXT NOT NULL,
    speedup REAL,
    speedup_compile REAL,
    timings TEXT NOT NULL DEFAULT '{}',           -- JSON
    prompt_tokens INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd REAL,
    transcript TEXT NOT NULL DEFAULT '[]',        -- JSON list of messages
    created_at TEXT NOT NULL,
    UNIQUE (run_id, task_id, round, sample)
);
CREATE INDEX IF NOT EXISTS attempts_by_task ON attempts (task_id, status);

CREATE TABLE IF NOT EXISTS verifications (
    id INTEGER PRIMARY KEY,
    run_name TEXT NOT NULL,
    bundle_sha256 TEXT NOT NULL,
    verified_at TEXT NOT NULL,
    verifier_host TEXT NOT NULL,
    holds INTEGER NOT NULL,                       -- 1 when every claim held
    hardware TEXT NOT NULL DEFAULT '{}',          -- JSON: the verifying machine
    outcome TEXT NOT NULL                         -- JSON: per-task claimed vs measured
);
CREATE INDEX IF NOT EXISTS verifications_by_run ON verifications (run_name, bundle_sha256);

-- An episode is one task's whole agent session (all its rounds and samples); a finished
-- one is skipped by --resume, an unfinished one is re-run (its attempts replaced).
CREATE TABLE IF NOT EXISTS episodes (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    task_id TEXT NOT NULL,
    finished_at TEXT NOT NULL,
    PRIMARY KEY (run_id, task_id)
);

"""
SCHEMA = _TABLES + SCORE_TABLES


def read_version(connection: sqlite3.Connection) -> int | None:
    """The schema version, 0 for a draft-layout database, None for an empty one."""
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
    if "schema_meta" in tables:
        row = connection.execute(
            "SELECT value FROM schema_meta WHERE key = 'schema_version'"
        ).fetchone()
        if row is not None:
            return int(row[0])
    return 0 if "runs" in tables else None


def _migrate_0_to_1(connection: sqlite3.Connection) -> None:
    """Draft layout -> v1: add the provenance and scoring columns, backfill them."""
    for table, column, declaration in (
        ("runs", "hardware_key", "TEXT NOT NULL DEFAULT ''"),
        ("runs", "hidden_seed", "INTEGER"),
        ("runs", "task_ids", "TEXT NOT NULL DEFAULT '[]'"),
        ("attempts", "speedup_compile", "REAL"),
        ("attempts", "transcript", "TEXT NOT NULL DEFAULT '[]'"),
    ):
        connection.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
    connection.execute(
        "UPDATE attempts SET speedup_compile = json_extract(verdict, '$.speedup_compile')"
    )
    for run_id, hardware in connection.execute("SELECT id, hardware FROM runs").fetchall():
        key = hardware_key(json.loads(hardware or "{}"))
        connection.execute("UPDATE runs SET hardware_key = ? WHERE id = ?", (key, run_id))


def _migrate_1_to_2(connection: sqlite3.Connection) -> None:
    """v1 -> v2: versioned score reports for every run and re-measuring verification,
    computed here once (v1's stored reports, derived data, are replaced)."""
    connection.execute("DROP TABLE IF EXISTS scores")
    _create_tables(connection)  # a v0 database has no verifications table yet
    rescore_connection(connection, datetime.now(UTC).isoformat(timespec="seconds"))


def _migrate_2_to_3(connection: sqlite3.Connection) -> None:
    """v2 -> v3: the ``hidden`` flag on runs (every existing run stays shown)."""
    connection.execute("ALTER TABLE runs ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0")


def _migrate_3_to_4(connection: sqlite3.Connection) -> None:
    """v3 -> v4: ``interrupted`` among the run statuses, and ``runs.stop_reason``: the
    table is rebuilt from the current definition and every row copied."""
    definition = SCHEMA[SCHEMA.index("CREATE TABLE IF NOT EXISTS runs ("):]
    definition = definition[:definition.index(");") + 2]
    connection.execute(definition.replace("IF NOT EXISTS runs (", "runs_v4 ("))
    columns = ", ".join(row[1] for row in connection.execute("PRAGMA table_info(runs)"))
    connection.execute(f"INSERT INTO runs_v4 ({columns}) SELECT {columns} FROM runs")
    connection.execute("DROP TABLE runs")
    connection.execute("ALTER TABLE runs_v4 RENAME TO runs")


def _migrate_4_to_5(connection: sqlite3.Connection) -> None:
    """v4 -> v5: the ``baselines`` table goes (no release ever wrote it: the baselines of
    a verdict are timed beside the candidate, in the same check)."""
    connection.execute("DROP TABLE IF EXISTS baselines")


#: from-version -> the step that brings a database to from-version + 1
MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {
    0: _migrate_0_to_1,
    1: _migrate_1_to_2,
    2: _migrate_2_to_3,
    3: _migrate_3_to_4,
    4: _migrate_4_to_5,
}


def _create_tables(connection: sqlite3.Connection) -> None:
    for statement in SCHEMA.split(";\n"):  # executescript would COMMIT early
        if statement.strip():
            connection.execute(statement)


def ensure_schema(connection: sqlite3.Connection) -> int:
    """Create or migrate the schema to ``SCHEMA_VERSION`` (in one transaction).

    A database already at the current version is only read, so read-only copies open.

    Returns:
        The version the database had before (an empty database reports the current one).

    Raises:
        SchemaVersionError: the database is newer than this code.
    """
    if read_version(connection) == SCHEMA_VERSION:
        return SCHEMA_VERSION
    # A table rebuild (v3 -> v4) must not cascade; the pragma only takes outside a
    # transaction, and the foreign keys are checked before the migration commits.
    foreign_keys = connection.execute("PRAGMA foreign_keys").fetchone()[0]
    connection.execute("PRAGMA foreign_keys = OFF")
    connection.execute("BEGIN IMMEDIATE")
    try:
        version = read_version(connection)
        before = SCHEMA_VERSION if version is None else version
        if version is not None and version > SCHEMA_VERSION:
            raise SchemaVersionError(
                f"store schema version {version} is newer than this kerneltrials understands "
                f"({SCHEMA_VERSION}): upgrade kerneltrials"
            )
        while version is not None and version < SCHEMA_VERSION:
            MIGRATIONS[version](connection)
            version += 1
        _create_tables(connection)
        connection.execute(
            "INSERT OR REPLACE INTO schema_meta (key, value) VALUES ('schema_version', ?)",
            (str(SCHEMA_VERSION),),
        )
        broken = connection.execute("PRAGMA foreign_key_check").fetchall()
        if broken:
            raise sqlite3.DatabaseError(f"migration left {len(broken)} dangling reference(s)")
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    finally:
        connection.execute(f"PRAGMA foreign_keys = {'ON' if foreign_keys else 'OFF'}")
    return before
