"""The results store against a real SQLite file: runs, attempts, verifications."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kerneltrials.results import (
    AttemptExistsError,
    ResultsStore,
    RunExistsError,
    StoreError,
    UnknownRunError,
    hardware_key,
    open_store,
    resolve_db_path,
)
from kerneltrials.verifier.verdict import Status, Verdict

pytestmark = pytest.mark.timeout(60)


def a_verdict(
    status: str = "correct", speedup: float | None = 1.5, task: str = "L1/relu", **fields: Any
) -> dict[str, Any]:
    """A verdict's JSON, as ``kerneltrials check --json`` prints it."""
    return {
        "task": task,
        "backend": "cpu",
        "status": status,
        "correct": status == "correct",
        "speedup": speedup,
        **fields,
    }


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ResultsStore]:
    with open_store(tmp_path / "results.sqlite") as opened:
        yield opened


def a_run(store: ResultsStore, name: str = "r1", **fields: Any) -> Any:
    options = {
        "model": "reference",
        "agent": "one-shot",
        "backend": "cpu",
        "profile": "cpu",
        "task_ids": ["L1/relu", "L1/gelu"],
        **fields,
    }
    return store.create_run(name=name, **options)


def test_store_uses_wal_foreign_keys_and_a_busy_timeout(store: ResultsStore) -> None:
    connection = sqlite3.connect(store.path)
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store._query("PRAGMA foreign_keys")[0][0] == 1
    assert store._query("PRAGMA busy_timeout")[0][0] >= 1000
    connection.close()


def test_run_roundtrip_keeps_provenance(store: ResultsStore) -> None:
    hardware = {"cpu": "Xeon", "cores": 2, "torch": "2.14.1"}
    run = a_run(
        store,
        hardware=hardware,
        harness_version="0.1.0",
        task_set_version="ts1",
        git_commit="abc123",
        hidden_seed=42,
        config={"max_cost": 5.0},
    )
    again = store.get_run("r1")
    assert again == run
    assert (again.hidden_seed, again.git_commit, again.config) == (42, "abc123", {"max_cost": 5.0})
    assert again.hardware == hardware and again.hardware_key == hardware_key(hardware)
    assert again.task_ids == ["L1/relu", "L1/gelu"]
    assert again.status == "running" and again.ended_at is None and again.version == 1


def test_duplicate_run_name_and_unknown_run_are_clear_errors(store: ResultsStore) -> None:
    a_run(store)
    with pytest.raises(RunExistsError, match="--resume"):
        a_run(store)
    with pytest.raises(UnknownRunError, match="r1"):  # lists the runs that do exist
        store.get_run("nope")


def test_default_run_name_is_unique_and_readable(store: ResultsStore) -> None:
    first = store.create_run(model="openai:gpt-x", agent="refine", backend="cpu", profile="cpu")
    second = store.create_run(model="openai:gpt-x", agent="refine", backend="cpu", profile="cpu")
    assert first.name != second.name
    assert first.name.startswith("openai_gpt-x-refine-")
    assert [r.name for r in store.list_runs()] == [second.name, first.name]


def test_finish_and_reopen_run(store: ResultsStore) -> None:
    a_run(store)
    stopped = store.finish_run("r1", status="stopped")
    assert stopped.status == "stopped" and stopped.ended_at is not None
    assert store.reopen_run("r1").status == "running"
    assert store.finish_run("r1").status == "finished"
    with pytest.raises(ValueError):
        store.finish_run("r1", status="running")


def test_attempt_roundtrip_from_dict_and_from_model(store: ResultsStore) -> None:
    a_run(store)
    stored = store.record_attempt(
        "r1",
        "L1/relu",
        a_verdict(speedup=2.0, speedup_compile=1.2),
        round=1,
        sample=2,
        source="class ModelNew: ...",
        timings={"build_s": 3.5},
        prompt_tokens=120,
        completion_tokens=40,
        cost_usd=0.01,
        transcript=[{"role": "user", "content": "hi"}],
    )
    assert (stored.status, stored.speedup, stored.speedup_compile) == ("correct", 2.0, 1.2)
    assert stored.key == ("L1/relu", 1, 2)
    assert stored.transcript == [{"role": "user", "content": "hi"}]
    assert stored.verdict.schema_version == 1 and stored.timings == {"build_s": 3.5}
    assert isinstance(stored.verdict, Verdict) and stored.verdict.speedup_compile == 1.2
    assert stored.to_dict()["verdict"] == stored.verdict.to_dict()  # JSON-ready
    model = Verdict(task="L1/gelu", backend="cpu", status=Status.INCORRECT, policy="strict",
                    reasons=["correctness:max_abs_err=0.5"])
    store.record_attempt("r1", "L1/gelu", model)
    assert [a.status for a in store.attempts_for_run("r1")] == ["incorrect", "correct"]
    assert store.attempts_for_run("r1")[0].verdict == model  # a Verdict in, the same out


def test_no_code_and_error_verdicts_keep_their_policy(store: ResultsStore) -> None:
    from kerneltrials.tasks import load_task

    a_run(store)
    relu = load_task("L1/relu")  # level 1: strict unless forced
    store.record_attempt("r1", "L1/relu", Verdict.no_code(relu, "cpu"))
    store.record_attempt("r1", "L1/relu", Verdict.infrastructure_error(
        relu, "cpu", "mixed", "harness:worker_lost:x"), round=1)
    no_code, error = store.attempts_for_run("r1")
    assert (no_code.status, no_code.verdict.policy) == ("incorrect", "strict")
    assert no_code.verdict.reasons == ["agent:no_code"] and not no_code.verdict.compiled
    assert (error.status, error.verdict.policy) == ("error", "mixed")
    assert error.verdict.reasons == ["harness:worker_lost:x"]


def test_invalid_verdict_is_refused_and_nothing_is_written(store: ResultsStore) -> None:
    a_run(store)
    with pytest.raises(ValueError):
        store.record_attempt("r1", "L1/relu", a_verdict(status="great"))
    assert store.attempts_for_run("r1") == []


def test_nan_speedup_is_stored_as_missing(store: ResultsStore) -> None:
    a_run(store)
    assert store.record_attempt("r1", "L1/relu", a_verdict(speedup=float("nan"))).speedup is None


def test_resume_cannot_duplicate_an_attempt(store: ResultsStore) -> None:
    a_run(store)
    store.record_attempt("r1", "L1/relu", a_verdict("error", None))
    with pytest.raises(AttemptExistsError, match="replace=True"):
        store.record_attempt("r1", "L1/relu", a_verdict())
    assert store.finished_keys("r1") == {("L1/relu", 0, 0)}
    assert store.finished_keys("r1", include_excluded=False) == set()
    retried = store.record_attempt("r1", "L1/relu", a_verdict(speedup=3.0), replace=True)
    assert (retried.status, retried.speedup) == ("correct", 3.0)
    assert len(store.attempts_for_run("r1")) == 1


def test_attempts_need_an_existing_run(store: ResultsStore) -> None:
    with pytest.raises(UnknownRunError):
        store.record_attempt("ghost", "L1/relu", a_verdict())
    with pytest.raises(sqlite3.IntegrityError):  # the foreign key holds even below the API
        with store._write() as connection:
            connection.execute(
                "INSERT INTO attempts (run_id, task_id, verdict, status, "
                "created_at) VALUES (99, 't', '{}', 'correct', 'now')"
            )


def test_attempts_for_task_span_runs(store: ResultsStore) -> None:
    a_run(store, "r1")
    a_run(store, "r2")
    store.record_attempt("r1", "L1/relu", a_verdict(speedup=1.1))
    store.record_attempt("r2", "L1/relu", a_verdict(speedup=2.2))
    store.record_attempt("r2", "L1/gelu", a_verdict(task="L1/gelu"))
    assert [a.speedup for a in store.attempts_for_task("L1/relu")] == [1.1, 2.2]


def test_verifications_by_run_and_bundle(store: ResultsStore) -> None:
    store.record_verification(
        "r1", "aaa", holds=True, outcome={"L1/relu": "holds"}, verifier_host="ci-1"
    )
    store.record_verification("r1", "bbb", holds=False, outcome={"L1/relu": "speedup"})
    assert [v.holds for v in store.verifications_for("r1", "aaa")] == [True]
    assert {v.bundle_sha256 for v in store.verifications_for("r1")} == {"aaa", "bbb"}
    assert store.verifications_for("r2") == []
    assert store.verifications_for("r1", "aaa")[0].verifier_host == "ci-1"


def test_scores_are_stored_one_per_baseline(store: ResultsStore) -> None:
    a_run(store)
    store.save_score("r1", {"baseline": "eager", "fast_p": {"1": 0.5}})
    store.save_score("r1", {"baseline": "eager", "fast_p": {"1": 0.75}})
    store.save_score("r1", {"baseline": "compile", "fast_p": {"1": 0.25}})
    scores = {s.baseline: s.report["fast_p"]["1"] for s in store.load_scores("r1")}
    assert scores == {"compile": 0.25, "eager": 0.75}


def test_db_path_resolution_and_missing_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KERNELTRIALS_DB", raising=False)
    assert resolve_db_path() == Path("kerneltrials.sqlite")
    monkeypatch.setenv("KERNELTRIALS_DB", str(tmp_path / "env.sqlite"))
    assert resolve_db_path() == tmp_path / "env.sqlite"
    assert resolve_db_path(tmp_path / "x.sqlite") == tmp_path / "x.sqlite"
    with pytest.raises(StoreError, match="--db"):
        open_store(tmp_path / "missing.sqlite", create=False)
    assert not (tmp_path / "missing.sqlite").exists()
