"""Stored scores against a real SQLite file: what ``eval``, ``kerneltrials score`` and a
recorded verification store, and what an older store gets from its migration."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from kerneltrials.results import (
    SCHEMA_VERSION,
    ResultsStore,
    open_store,
    save_run_scores,
    score_run,
)
from kerneltrials.scoring import SCORES_VERSION

pytestmark = pytest.mark.timeout(60)

SELECTED = ["L1/relu", "L1/gelu", "L2/ghost"]


def a_verdict(task: str, status: str, speedup: float | None, compile: float | None = None) -> dict:
    return {"task": task, "backend": "cpu", "status": status, "correct": status == "correct",
            "speedup": speedup, "speedup_compile": compile}  # fmt: skip


def fill(store: ResultsStore) -> None:
    """Run ``r``: relu correct 2.0 (compile 1.5), gelu incorrect, L2/ghost never attempted;
    run ``empty``: selected, nothing attempted."""
    store.create_run(name="r", model="m", agent="a", backend="cpu", profile="cpu",
                     task_ids=SELECTED)  # fmt: skip
    store.record_attempt("r", "L1/relu", a_verdict("L1/relu", "correct", 2.0, 1.5))
    store.record_attempt("r", "L1/gelu", a_verdict("L1/gelu", "incorrect", None))
    store.create_run(name="empty", model="m", agent="a", backend="cpu", profile="cpu",
                     task_ids=["L1/relu"])  # fmt: skip


def a_claim(task: str, claimed: str, measured: str | None, speedup: float | None,
            result: str) -> dict[str, Any]:  # fmt: skip
    """One attempt of a verification outcome (``ClaimOutcome`` as JSON)."""
    return {"task_id": task, "round": 0, "sample": 0, "status_claimed": claimed,
            "status_measured": measured, "speedup_measured": speedup,
            "speedup_compile_measured": None, "result": result}  # fmt: skip


#: a verification of ``r`` that re-measured relu at 1.0x (claimed 2.0x) and could not
#: re-run gelu: re-measured, relu is correct but not fast at 1, gelu counts as error
OUTCOME = {
    "verification_version": 2,
    "state": "failed",
    "attempts": [
        a_claim("L1/relu", "correct", "correct", 1.0, "fails"),
        a_claim("L1/gelu", "incorrect", None, None, "not_remeasured"),
    ],
}


def check_scores_of_r(scores: dict[str, dict[str, Any]]) -> None:
    """The standard reports of run ``r``, hand-computed."""
    eager, compiled = scores["eager"], scores["compile"]
    assert eager["scores_version"] == SCORES_VERSION and eager["by"] == "level"
    assert eager["n_tasks"] == 3 and eager["fast_p"]["1"] == pytest.approx(1 / 3)
    assert list(eager["fast_p"]) == ["0", "0.8", "1", "1.5", "2"]
    assert compiled["fast_p"]["1.5"] == 0.0 and compiled["fast_p"]["1"] == pytest.approx(1 / 3)
    levels = {name: (g["n_tasks"], g["task_ids"], g["fast_p"]["1"])
              for name, g in eager["groups"].items()}  # fmt: skip
    assert levels == {"L1": (2, ["L1/relu", "L1/gelu"], 0.5), "L2": (1, ["L2/ghost"], 0.0)}


def test_a_finished_run_stores_its_standard_scores(tmp_path: Path) -> None:
    with open_store(tmp_path / "s.sqlite") as store:
        fill(store)
        saved = save_run_scores(store, "r")
        assert {b: s.version for b, s in saved.items()} == {"eager": 2, "compile": 2}
        check_scores_of_r({s.baseline: s.report for s in store.load_scores("r")})
        [empty, _] = save_run_scores(store, "empty").values()
        assert empty.report["n_tasks"] == 1 and empty.report["fast_p"]["0"] == 0.0


def test_score_stores_the_standard_report_whatever_view_it_returns(tmp_path: Path) -> None:
    with open_store(tmp_path / "s.sqlite") as store:
        fill(store)
        report = score_run(store, "r", p_values="0.5", seed=3, by="tag", save=True)
        assert list(report.fast_p) == ["0.5"] and report.by == "tag"
        [stored] = store.load_scores("r")
        assert stored.baseline == "eager" and stored.version == SCORES_VERSION
        assert stored.report["by"] == "level" and "0.5" not in stored.report["fast_p"]
        score_run(store, "r", baseline="compile", save=True)
        check_scores_of_r({s.baseline: s.report for s in store.load_scores("r")})


def test_a_verification_stores_its_remeasured_scores(tmp_path: Path) -> None:
    with open_store(tmp_path / "s.sqlite") as store:
        fill(store)
        record = store.record_verification("r", "h", holds=False, outcome=OUTCOME)
        eager = record.scores["eager"]
        assert eager["geomean_speedup"]["value"] == pytest.approx(1.0)  # not the claimed 2.0
        assert eager["fast_p"]["1"] == 0.0 and eager["n_selected"] == 3  # the run's selection
        assert eager["n_tasks"] == 2  # gelu, not re-run, counts as error: excluded
        assert eager["groups"]["L1"]["excluded"] == {"error": 1}
        [again] = store.verifications_for("r", "h")
        assert again.scores == record.scores
        # a run this store does not hold: the selection is passed, or the outcome's own
        other = store.record_verification("x", "h", holds=False, outcome=OUTCOME,
                                          task_ids=["L1/relu", "L1/gelu"])  # fmt: skip
        assert other.scores["eager"]["n_selected"] == 2
        # an outcome without per-attempt re-measurements has no re-measured scores
        assert store.record_verification("r", "h", holds=True, outcome={}).scores == {}


def downgrade_to_v1(path: Path) -> None:
    """Turn a current store into what version 1 wrote: scores without a version (and
    without levels), no verification_scores, no runs.hidden, schema_version 1."""
    connection = sqlite3.connect(path)
    old = json.dumps({"baseline": "eager", "fast_p": {"1": 0.99}, "n_tasks": 9})
    connection.executescript(f"""
        DROP TABLE verification_scores;
        DROP TABLE scores;
        CREATE TABLE scores (id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            baseline TEXT NOT NULL CHECK (baseline IN ('eager', 'compile')),
            report TEXT NOT NULL, created_at TEXT NOT NULL, UNIQUE (run_id, baseline));
        INSERT INTO scores (run_id, baseline, report, created_at)
            VALUES (1, 'eager', '{old}', '2025-01-01T00:00:00+00:00');
        ALTER TABLE runs DROP COLUMN hidden;
        UPDATE schema_meta SET value = '1' WHERE key = 'schema_version';
    """)  # fmt: skip
    connection.commit()
    connection.close()


def test_a_v1_store_gets_every_score_computed_once_by_its_migration(tmp_path: Path) -> None:
    path = tmp_path / "v1.sqlite"
    with open_store(path) as store:
        fill(store)
        store.record_verification("r", "h", holds=False, outcome=OUTCOME)
    downgrade_to_v1(path)
    with open_store(path) as store:
        assert store.migrated_from == 1
        scores = {s.baseline: s for s in store.load_scores("r")}
        check_scores_of_r({b: s.report for b, s in scores.items()})  # the old report replaced
        assert {s.baseline for s in store.load_scores("empty")} == {"eager", "compile"}
        [verification] = store.verifications_for("r")
        assert verification.scores["eager"]["geomean_speedup"]["value"] == pytest.approx(1.0)
        assert store.integrity_check() == "ok"
    with open_store(path) as store:  # once: a current store is only read
        assert store.migrated_from == SCHEMA_VERSION
        again = {s.baseline: s for s in store.load_scores("r")}
        assert {b: s.created_at for b, s in again.items()} == {
            b: s.created_at for b, s in scores.items()
        }
