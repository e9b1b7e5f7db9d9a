"""The store's SQL schema, its version, and the migrations between versions.

A store records its version in ``schema_meta`` (key ``schema_version``). A database with
tables but no ``schema_meta`` is version 0: the draft layout used before the first release
(no hardware key, hidden seed or task selection on runs; no ``speedup_compile`` or
transcript on attempts; no verifications or scores). Opening a store migrates it in one
``BEGIN IMMEDIATE`` transaction, so concurrent openers never see half a migration.
A change to the schema bumps ``SCHEMA_VERSION`` and adds a step to ``MIGRATIONS`` with
a test that opens a database of the old version.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable

from kerneltrials.results._errors import SchemaVersionError
from kerneltrials.results._records import hardware_key

SCHEMA_VERSION = 1


SCHEMA = """
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
        CHECK (status IN ('running', 'finished', 'stopped')),
    config TEXT NOT NULL DEFAULT '{}',            -- JSON: the eval options
    task_ids TEXT NOT NULL DEFAULT '[]'           -- JSON list: the selection (denominator)
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

CREATE TABLE IF NOT EXISTS baselines (
    id INTEGER PRIMARY KEY,
    task_id TEXT NOT NULL,
    config_key TEXT NOT NULL,                     -- canonical JSON of the configuration
    hardware_key TEXT NOT NULL,
    torch_version TEXT NOT NULL,
    eager_ms TEXT,                                -- JSON TimingStats
    compile_ms TEXT,                              -- JSON TimingStats
    created_at TEXT NOT NULL,
    UNIQUE (task_id, config_key, hardware_key, torch_version)
);

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

CREATE TABLE IF NOT EXISTS scores (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    baseline TEXT NOT NULL CHECK (baseline IN ('eager', 'compile')),
    report TEXT NOT NULL,                         -- JSON ScoreReport.to_json()
    created_at TEXT NOT NULL,
    UNIQUE (run_id, baseline)
);
"""


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


#: from-version -> the step that brings a database to from-version + 1
MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {0: _migrate_0_to_1}


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
        for statement in SCHEMA.split(";\n"):  # executescript would COMMIT early
            if statement.strip():
                connection.execute(statement)
        connection.execute(
            "INSERT OR REPLACE INTO schema_meta (key, value) VALUES ('schema_version', ?)",
            (str(SCHEMA_VERSION),),
        )
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    return before
