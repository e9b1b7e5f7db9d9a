"""Schema versions: an older database is migrated on open; a newer one is refused."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from kerneltrials.results import (
    SCHEMA_VERSION,
    SchemaVersionError,
    StoreError,
    hardware_key,
    open_store,
)
from kerneltrials.scoring import score_attempts

pytestmark = pytest.mark.timeout(60)

#: the draft (v0) layout, written by hand as it was before schema_meta existed
V0_SCHEMA = """
CREATE TABLE runs (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, model TEXT NOT NULL,
    agent TEXT NOT NULL, backend TEXT NOT NULL, profile TEXT NOT NULL,
    hardware TEXT NOT NULL DEFAULT '{}', harness_version TEXT NOT NULL DEFAULT '',
    task_set_version TEXT NOT NULL DEFAULT '', git_commit TEXT, started_at TEXT NOT NULL,
    ended_at TEXT, status TEXT NOT NULL DEFAULT 'running', config TEXT NOT NULL DEFAULT '{}');
CREATE TABLE attempts (id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id),
    task_id TEXT NOT NULL, round INTEGER NOT NULL DEFAULT 0, sample INTEGER NOT NULL DEFAULT 0,
    source TEXT, verdict TEXT NOT NULL, status TEXT NOT NULL, speedup REAL,
    timings TEXT NOT NULL DEFAULT '{}', prompt_tokens INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0, cost_usd REAL, created_at TEXT NOT NULL,
    UNIQUE (run_id, task_id, round, sample));
CREATE TABLE baselines (id INTEGER PRIMARY KEY, task_id TEXT NOT NULL,
    config_key TEXT NOT NULL, hardware_key TEXT NOT NULL, torch_version TEXT NOT NULL,
    eager_ms TEXT, compile_ms TEXT, created_at TEXT NOT NULL,
    UNIQUE (task_id, config_key, hardware_key, torch_version));
"""

HARDWARE = {"cpu": "Xeon", "cores": 2}


def write_v0_database(path: Path) -> None:
    """A v0 store with one run and two attempts, as the draft code wrote it."""
    connection = sqlite3.connect(path)
    connection.executescript(V0_SCHEMA)
    connection.execute(
        "INSERT INTO runs (name, model, agent, backend, profile, hardware, started_at, status) "
        "VALUES ('old', 'reference', 'one-shot', 'cpu', 'cpu', ?, '2025-01-01T00:00:00+00:00',"
        " 'finished')",
        (json.dumps(HARDWARE),),
    )
    for task, status, speedup, compile_speedup in (
        ("L1/relu", "correct", 2.0, 1.5),
        ("L1/gelu", "incorrect", None, None),
    ):
        verdict = {
            "task": task,
            "backend": "cpu",
            "status": status,
            "speedup": speedup,
            "speedup_compile": compile_speedup,
        }
        connection.execute(
            "INSERT INTO attempts (run_id, task_id, verdict, status, speedup, created_at) "
            "VALUES (1, ?, ?, ?, ?, '2025-01-01T00:00:01+00:00')",
            (task, json.dumps(verdict), status, speedup),
        )
    connection.commit()
    connection.close()


def test_v0_database_is_migrated_on_open_and_keeps_its_data(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    write_v0_database(path)
    with open_store(path) as store:
        assert store.migrated_from == 0
        run = store.get_run("old")
        assert run.hardware_key == hardware_key(HARDWARE)
        assert run.task_ids == [] and run.hidden_seed is None and run.hidden is False
        attempts = store.attempts_for_run("old")
        assert [(a.task_id, a.speedup_compile) for a in attempts] == [
            ("L1/gelu", None),
            ("L1/relu", 1.5),
        ]  # backfilled from the verdict JSON
        assert attempts[0].transcript == []
        # the draft's verdict JSON is read through migrate_verdict into the current model
        assert attempts[1].verdict.speedup_compile == 1.5 and attempts[1].verdict.status == "correct"
        assert attempts[0].verdict.schema_version == 1 and attempts[0].verdict.reasons == []
        report = score_attempts(attempts, run.task_ids, baseline="compile", p_values="1")
        assert report.fast_p == {"1": 0.5}
        # scored once by the migration (v1 -> v2), as the store's readers expect
        stored = {s.baseline: s.report for s in store.load_scores("old")}
        assert stored["compile"]["fast_p"]["1"] == 0.5 and stored["eager"]["fast_p"]["2"] == 0.0
        store.record_verification("old", "h", holds=True, outcome={})  # new table exists
        assert store.integrity_check() == "ok"
    meta = (
        sqlite3.connect(path)
        .execute("SELECT value FROM schema_meta WHERE key = 'schema_version'")
        .fetchone()
    )
    assert int(meta[0]) == SCHEMA_VERSION


def test_reopening_a_current_store_does_not_migrate_again(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite"
    with open_store(path) as store:
        assert store.migrated_from == SCHEMA_VERSION
        store.create_run(name="r", model="m", agent="a", backend="cpu", profile="cpu")
    with open_store(path) as store:
        assert store.migrated_from == SCHEMA_VERSION
        assert [r.name for r in store.list_runs()] == ["r"]


def test_a_newer_database_is_refused_with_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "future.sqlite"
    with open_store(path):
        pass
    connection = sqlite3.connect(path)
    connection.execute(
        "UPDATE schema_meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 1),)
    )
    connection.commit()
    connection.close()
    with pytest.raises(SchemaVersionError, match="upgrade kerneltrials"):
        open_store(path)


def test_a_failed_migration_leaves_the_old_database_untouched(tmp_path: Path) -> None:
    path = tmp_path / "broken.sqlite"
    write_v0_database(path)
    connection = sqlite3.connect(path)  # a column the migration wants to add already exists
    connection.execute("ALTER TABLE attempts ADD COLUMN transcript TEXT")
    connection.commit()
    connection.close()
    with pytest.raises(StoreError, match="duplicate column"):
        open_store(path)
    connection = sqlite3.connect(path)
    columns = {row[1] for row in connection.execute("PRAGMA table_info(runs)")}
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
    assert "hardware_key" not in columns and "schema_meta" not in tables


def test_a_v2_store_gains_the_hidden_flag_with_every_run_shown(tmp_path: Path) -> None:
    path = tmp_path / "v2.sqlite"
    with open_store(path) as store:
        store.create_run(name="kept", model="m", agent="a", backend="cpu", profile="cpu")
    connection = sqlite3.connect(path)  # what version 2 wrote: runs without ``hidden``
    connection.executescript("""
        ALTER TABLE runs DROP COLUMN hidden;
        UPDATE schema_meta SET value = '2' WHERE key = 'schema_version';
    """)
    connection.commit()
    connection.close()
    with open_store(path) as store:
        assert store.migrated_from == 2
        assert store.get_run("kept").hidden is False
        assert store.set_hidden("kept").hidden is True
        assert store.integrity_check() == "ok"
    with open_store(path) as store:
        assert store.migrated_from == SCHEMA_VERSION
        assert [(r.name, r.hidden) for r in store.list_runs()] == [("kept", True)]
        assert store.set_hidden("kept", False).hidden is False


#: the runs table of version 3, as it was: three statuses, no stop_reason
V3_RUNS = """
CREATE TABLE runs (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, model TEXT NOT NULL,
    agent TEXT NOT NULL, backend TEXT NOT NULL, profile TEXT NOT NULL,
    hardware TEXT NOT NULL DEFAULT '{}', hardware_key TEXT NOT NULL DEFAULT '',
    harness_version TEXT NOT NULL DEFAULT '', task_set_version TEXT NOT NULL DEFAULT '',
    git_commit TEXT, hidden_seed INTEGER, started_at TEXT NOT NULL, ended_at TEXT,
    status TEXT NOT NULL DEFAULT 'running'
        CHECK (status IN ('running', 'finished', 'stopped')),
    config TEXT NOT NULL DEFAULT '{}', task_ids TEXT NOT NULL DEFAULT '[]',
    hidden INTEGER NOT NULL DEFAULT 0)
"""


def test_a_v3_store_can_mark_a_run_interrupted_and_keeps_every_attempt(tmp_path: Path) -> None:
    from kerneltrials.verifier.verdict import Status, Verdict

    path = tmp_path / "v3.sqlite"
    with open_store(path) as store:
        store.create_run(name="kept", model="m", agent="a", backend="cpu", profile="cpu",
                         task_ids=["L1/relu"])
        verdict = Verdict(task="L1/relu", backend="cpu", status=Status.INCORRECT, policy="strict")
        store.record_attempt("kept", "L1/relu", verdict)
        store.finish_run("kept", "stopped")
    connection = sqlite3.connect(path)  # rebuild runs as version 3 had it (no cascade)
    connection.execute("PRAGMA foreign_keys = OFF")
    columns = ("id, name, model, agent, backend, profile, hardware, hardware_key, "
               "harness_version, task_set_version, git_commit, hidden_seed, started_at, "
               "ended_at, status, config, task_ids, hidden")
    connection.executescript(f"""
        ALTER TABLE runs RENAME TO runs_v4;
        {V3_RUNS};
        INSERT INTO runs ({columns}) SELECT {columns} FROM runs_v4;
        DROP TABLE runs_v4;
        UPDATE schema_meta SET value = '3' WHERE key = 'schema_version';
    """)
    connection.commit()
    with pytest.raises(sqlite3.IntegrityError):  # what version 3 refused
        connection.execute("UPDATE runs SET status = 'interrupted'")
    connection.close()
    with open_store(path) as store:
        assert store.migrated_from == 3
        # The rebuild did not cascade: the attempt is still there, under the same run.
        assert [a.task_id for a in store.attempts_for_run("kept")] == ["L1/relu"]
        assert store.get_run("kept").status == "stopped"
        ended = store.finish_run("kept", "interrupted", reason="interrupted by SIGINT")
        assert (ended.status, ended.stop_reason) == ("interrupted", "interrupted by SIGINT")
        assert store.reopen_run("kept").stop_reason is None
        assert store.integrity_check() == "ok"
        foreign_keys = store._query("PRAGMA foreign_keys")[0][0]
        assert foreign_keys == 1  # switched back on after the migration
    with pytest.raises(ValueError, match="interrupted"):
        with open_store(path) as store:
            store.finish_run("kept", "paused")


def test_a_v4_store_loses_only_the_unused_baselines_table(tmp_path: Path) -> None:
    from kerneltrials.verifier.verdict import Status, Verdict

    path = tmp_path / "v4.sqlite"
    with open_store(path) as store:
        store.create_run(name="kept", model="m", agent="a", backend="cpu", profile="cpu",
                         task_ids=["L1/relu"])
        store.record_attempt("kept", "L1/relu", Verdict(task="L1/relu", backend="cpu",
                                                        status=Status.INCORRECT))
    connection = sqlite3.connect(path)  # what version 4 had beside: the baselines table
    connection.executescript("""
        CREATE TABLE baselines (id INTEGER PRIMARY KEY, task_id TEXT NOT NULL,
            config_key TEXT NOT NULL, hardware_key TEXT NOT NULL, torch_version TEXT NOT NULL,
            eager_ms TEXT, compile_ms TEXT, created_at TEXT NOT NULL,
            UNIQUE (task_id, config_key, hardware_key, torch_version));
        INSERT INTO baselines (task_id, config_key, hardware_key, torch_version, created_at)
            VALUES ('L1/relu', '{}', 'h', '2.14.1', '2026-01-01');
        UPDATE schema_meta SET value = '4' WHERE key = 'schema_version';
    """)
    connection.commit()
    connection.close()
    with open_store(path) as store:
        assert store.migrated_from == 4
        tables = {row[0] for row in store._query("SELECT name FROM sqlite_master")}
        assert "baselines" not in tables and {"runs", "attempts", "scores"} <= tables
        assert [a.task_id for a in store.attempts_for_run("kept")] == ["L1/relu"]
        assert store.integrity_check() == "ok"
