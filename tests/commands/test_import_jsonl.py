"""``kerneltrials import jsonl`` (issue 23): a peer's published generations, in CUDA-L1's
released format, judged by the full verifier and stored as a run of the named model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kerneltrials.results import open_store
from tests.scheduler.evalkit import RELU_TASK
from tests.verifier.candidates import candidate

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def _import(path: Path, db: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "kerneltrials.cli", "import", "jsonl", str(path),
               "--model", "Peer Model (A100)", "--backend", "cpu", "--executor", "local",
               "--quick", "--no-compile-baseline", "--db", str(db), "--run", "peer", *extra]
    return subprocess.run(command, capture_output=True, text=True, timeout=800)


def test_three_generations_become_a_run_of_the_named_model(tmp_path: Path) -> None:
    rows = [
        {"level_id": 1, "task_id": 19, "ref_code": RELU_TASK.format(rows=301),
         "custom_code": candidate("relu_ok")},
        {"level_id": 1, "task_id": 20, "ref_code": RELU_TASK.format(rows=257),
         "custom_code": candidate("relu_wrong")},
        {"level_id": 2, "task_id": "7_fused", "ref_code": RELU_TASK.format(rows=199),
         "custom_code": "class ModelNew(:\n    pass\n"},
    ]
    path = tmp_path / "cuda_l1.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    db = tmp_path / "results.sqlite"
    result = _import(path, db, "--json", "--tasks-dir", str(tmp_path / "tasks"))
    assert result.returncode == 0, result.stderr[-3000:]
    summary = json.loads(result.stdout)
    assert summary["status"] == "finished" and summary["generations"] == 3
    store = open_store(db)
    run = store.get_run("peer")
    assert run.model == "Peer Model (A100)" and run.status == "finished"
    statuses = {a.task_id: a.status for a in store.attempts_for_run(run)}
    assert statuses == {"kb/L1/19": "correct", "kb/L1/20": "incorrect",
                        "kb/L2/7_fused": "compile_error"}
    assert (tmp_path / "tasks" / "level2" / "7_fused.py").read_text() == rows[2]["ref_code"]
    source = next(a.source for a in store.attempts_for_run(run) if a.task_id == "kb/L1/19")
    assert source is not None and "relu_ok" in source  # the generation as published


def test_a_malformed_line_is_named_and_nothing_is_stored(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"level_id": 1, "task_id": 1, "ref_code": "x",
                                "custom_code": "y"}) + "\n"
                    + json.dumps({"level_id": 1, "task_id": 2, "ref_code": "x"}) + "\n")
    db = tmp_path / "results.sqlite"
    result = _import(path, db)
    assert result.returncode == 2
    assert "bad.jsonl:2: missing custom_code" in result.stderr
    assert not db.exists()
