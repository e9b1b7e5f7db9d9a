"""``kerneltrials runs`` and ``kerneltrials score`` against a real SQLite file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from kerneltrials.cli import cli
from kerneltrials.results import open_store
from kerneltrials.tasks import load_task

pytestmark = pytest.mark.timeout(120)

SELECTED = ["L1/relu", "L1/gelu", "L2/ghost", "L1/untried", "path:weird"]


def a_verdict(
    task: str,
    status: str = "correct",
    speedup: float | None = None,
    speedup_compile: float | None = None,
    **fields: Any,
) -> dict[str, Any]:
    return {
        "task": task,
        "backend": "cpu",
        "status": status,
        "correct": status == "correct",
        "speedup": speedup,
        "speedup_compile": speedup_compile,
        **fields,
    }


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A store with run ``r1`` (hand-scored below) and an empty finished run ``r0``.

    r1, eager: relu correct 2.0 (best of two samples), gelu correct 0.5, L2/ghost incorrect
    (fast claims do not count), L1/untried never attempted, path:weird only an ``error``
    -> 4 scored tasks; fast_0 = 2/4, fast_1 = 1/4, fast_2 = 0 (strict); geomean sqrt(2*0.5)=1.
    """
    path = tmp_path / "store.sqlite"
    with open_store(path) as store:
        store.create_run(name="r0", model="m0", agent="one-shot", backend="cpu", profile="cpu")
        store.finish_run("r0")
        store.create_run(
            name="r1",
            model="reference",
            agent="one-shot",
            backend="cpu",
            profile="cpu",
            task_ids=SELECTED,
            hidden_seed=7,
        )
        store.record_attempt(
            "r1",
            "L1/relu",
            a_verdict("L1/relu", speedup=2.0, speedup_compile=1.5),
            prompt_tokens=100,
            completion_tokens=20,
            cost_usd=0.02,
        )
        store.record_attempt(
            "r1",
            "L1/relu",
            a_verdict("L1/relu", "incorrect", reasons=["correctness:max_abs_err=0.3"]),
            sample=1,
            prompt_tokens=100,
            completion_tokens=20,
            cost_usd=0.02,
        )
        store.record_attempt(
            "r1",
            "L1/gelu",
            a_verdict("L1/gelu", speedup=0.5, speedup_compile=0.25),
            prompt_tokens=50,
            completion_tokens=10,
        )
        store.record_attempt("r1", "L2/ghost", a_verdict("L2/ghost", "incorrect", speedup=9.0))
        store.record_attempt(
            "r1", "path:weird", a_verdict("path:weird", "error", reasons=["infra:worker_lost"])
        )
    return path


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), prog_name="kerneltrials")


def test_score_json_matches_the_hand_computed_table(db: Path) -> None:
    result = invoke("score", "r1", "--db", str(db), "--json", "--p", "0,1,1.5,2")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)  # stdout is JSON and nothing else
    assert data["run"] == "r1" and data["baseline"] == "eager"
    assert (data["n_tasks"], data["missing_tasks"], data["excluded_tasks"]) == (4, 1, 1)
    assert data["fast_p"] == {"0": 0.5, "1": 0.25, "1.5": 0.25, "2": 0.0}
    assert data["correct_rate"] == 0.5
    assert data["excluded"] == {"error": 1}
    assert data["geomean_speedup"]["value"] == pytest.approx(1.0)
    lo, hi = data["geomean_speedup"]["ci95"]
    assert lo <= 1.0 <= hi and lo >= 0.5 and hi <= 2.0
    assert data["tokens"] == {"prompt": 250, "completion": 50}
    assert data["cost_usd"] == pytest.approx(0.04)
    # relu has two samples (1 correct), the others one: k stops at the fewest, 1;
    # pass@1 = mean(1/2, 1, 0, 0 for the untried task) over the 4 scored tasks
    assert data["pass_at_k"] == {"1": pytest.approx(0.375)}


def test_score_against_compile_uses_speedup_compile(db: Path) -> None:
    result = invoke(
        "score", "r1", "--db", str(db), "--json", "--baseline", "compile", "--p", "1,1.4"
    )
    data = json.loads(result.stdout)
    assert data["baseline"] == "compile"
    assert data["fast_p"] == {"1": 0.25, "1.4": 0.25}
    assert data["geomean_speedup"]["value"] == pytest.approx((1.5 * 0.25) ** 0.5)


def test_score_is_deterministic_and_the_seed_is_an_option(db: Path) -> None:
    first = json.loads(invoke("score", "r1", "--db", str(db), "--json").stdout)
    again = json.loads(invoke("score", "r1", "--db", str(db), "--json").stdout)
    assert first == again
    other = json.loads(invoke("score", "r1", "--db", str(db), "--json", "--seed", "3").stdout)
    assert other["fast_p"] == first["fast_p"]


def test_score_by_level_falls_back_to_the_id_for_unknown_tasks(db: Path) -> None:
    data = json.loads(
        invoke("score", "r1", "--db", str(db), "--json", "--by", "level", "--p", "1").stdout
    )
    groups = data["groups"]
    assert data["by"] == "level"
    assert set(groups) == {"L1", "L2", "(unknown)"}
    assert (groups["L1"]["n_tasks"], groups["L1"]["fast_p"]["1"]) == (3, pytest.approx(1 / 3))
    assert (groups["L2"]["n_tasks"], groups["L2"]["fast_p"]["1"]) == (1, 0.0)
    assert groups["(unknown)"]["n_tasks"] == 0 and groups["(unknown)"]["excluded"] == {"error": 1}


def test_score_by_tag_uses_the_task_metadata(db: Path) -> None:
    data = json.loads(invoke("score", "r1", "--db", str(db), "--json", "--by", "tag").stdout)
    relu_tags = set(load_task("L1/relu").tags)
    assert relu_tags, "L1/relu should carry tags"
    assert relu_tags | {"(unknown)"} <= set(data["groups"])
    for tag in relu_tags:
        assert data["groups"][tag]["correct_rate"] > 0


def test_score_human_output_shows_the_table(db: Path) -> None:
    result = invoke("score", "r1", "--db", str(db), "--by", "level")
    assert result.exit_code == 0, result.output
    for text in ("fast_p", "50.0%", "25.0%", "geomean speedup", "1.000x", "by level", "L2"):
        assert text in result.stdout


def test_score_save_stores_the_report_for_the_leaderboard(db: Path) -> None:
    assert invoke("score", "r1", "--db", str(db), "--save", "--json").exit_code == 0
    with open_store(db) as store:
        [saved] = store.load_scores("r1")
    assert saved.baseline == "eager" and saved.report["fast_p"]["1"] == 0.25


def test_runs_list_json_and_table(db: Path) -> None:
    data = json.loads(invoke("runs", "list", "--db", str(db), "--json").stdout)
    by_name = {row["name"]: row for row in data}
    assert set(by_name) == {"r0", "r1"}
    assert by_name["r1"]["attempts"] == 5 and by_name["r1"]["correct"] == 2
    assert by_name["r1"]["statuses"] == {"correct": 2, "error": 1, "incorrect": 2}
    assert by_name["r0"]["status"] == "finished" and by_name["r0"]["attempts"] == 0
    table = invoke("runs", "list", "--db", str(db))
    assert table.exit_code == 0 and "r1" in table.stdout and "reference" in table.stdout


def test_runs_show_json_lists_every_attempt_without_sources(db: Path) -> None:
    data = json.loads(invoke("runs", "show", "r1", "--db", str(db), "--json").stdout)
    assert data["run"]["hidden_seed"] == 7 and data["run"]["task_ids"] == SELECTED
    rows = [(a["task"], a["sample"], a["status"]) for a in data["attempts"]]
    assert rows == [
        ("L1/gelu", 0, "correct"),
        ("L1/relu", 0, "correct"),
        ("L1/relu", 1, "incorrect"),
        ("L2/ghost", 0, "incorrect"),
        ("path:weird", 0, "error"),
    ]
    assert "source" not in data["attempts"][0]


def test_runs_show_table_marks_tasks_without_attempt(db: Path) -> None:
    result = invoke("runs", "show", "r1", "--db", str(db))
    assert result.exit_code == 0, result.output
    for text in ("reference", "L1/untried", "(no attempt)", "2.00x", "infra:worker_lost"):
        assert text in result.stdout


@pytest.mark.parametrize(
    "args",
    [
        ("score", "nope"),
        ("runs", "show", "nope"),
        ("score", "r1", "--p", "1,fast"),
    ],
)
def test_bad_input_is_a_clear_error_with_exit_code_2(db: Path, args: tuple[str, ...]) -> None:
    result = invoke(*args, "--db", str(db))
    assert result.exit_code == 2
    assert "error:" in result.stderr and result.stdout == ""


def test_missing_store_is_exit_2_and_is_not_created(tmp_path: Path) -> None:
    missing = tmp_path / "none.sqlite"
    for args in (("runs", "list"), ("score", "r1")):
        result = invoke(*args, "--db", str(missing))
        assert result.exit_code == 2 and "no results store" in result.stderr
    assert not missing.exists()


def test_a_file_that_is_not_a_store_is_exit_2(tmp_path: Path) -> None:
    not_a_db = tmp_path / "notes.sqlite"
    not_a_db.write_text("these are not the results you are looking for\n" * 100)
    result = invoke("runs", "list", "--db", str(not_a_db))
    assert result.exit_code == 2 and "cannot open results store" in result.stderr


def test_real_process_with_the_db_from_the_environment(db: Path, tmp_path: Path) -> None:
    env = {**os.environ, "KERNELTRIALS_DB": str(db)}
    command = [sys.executable, "-m", "kerneltrials.cli", "score", "r1", "--json"]
    done = subprocess.run(
        command, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=100
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["fast_p"]["1"] == 0.25
    failed = subprocess.run(
        [*command[:-2], "ghost"], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=100
    )
    assert failed.returncode == 2 and "ghost" in failed.stderr
