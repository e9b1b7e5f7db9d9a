"""The main table ranks only comparable runs: same scope, profile, task-set version and
task selection, finished; other selections, partial runs and runs over no task are listed
behind a toggle; an unmeasured baseline shows "–"; hidden and excluded runs are left out;
model metadata, cost and tokens per run, "last updated" and the about page are on the site."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from kerneltrials.leaderboard import ModelInfoError, build_site
from kerneltrials.results import ResultsStore, open_store, save_run_scores
from tests.leaderboard.conftest import MACHINE_A, a_verdict
from tests.leaderboard.test_site import cell

pytestmark = pytest.mark.timeout(120)

FULL = ["L1/relu", "L1/gelu"]
ROW = re.compile(r'<tr data-run="[^"]+" data-scope="all"(?P<attrs>[^>]*)>(?P<body>.*?)</tr>', re.S)


def add(store: ResultsStore, name: str, tasks: list[str], speedup: float, *,
        status: str = "finished", compile_baseline: bool = True,
        model: str = "openai:gpt-test") -> None:  # fmt: skip
    store.create_run(name=name, model=model, agent="one-shot", backend="cpu", profile="cpu",
                     hardware=MACHINE_A, harness_version="0.1.0", task_set_version="ts-1",
                     task_ids=tasks, hidden_seed=7)  # fmt: skip
    for task in tasks:
        verdict: dict[str, Any] = a_verdict(task, "correct", speedup, MACHINE_A)
        if not compile_baseline:
            verdict["speedup_compile"] = None
        store.record_attempt(name, task, verdict, source="# x\n", prompt_tokens=100,
                             completion_tokens=20, cost_usd=0.5)  # fmt: skip
    store.finish_run(name, "finished" if status == "finished" else "stopped")
    save_run_scores(store, name)


@pytest.fixture(scope="module")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("ranking") / "results.sqlite"
    with open_store(path) as store:
        add(store, "full-a", FULL, 2.0)
        add(store, "full-nocompile", FULL, 1.5, compile_baseline=False)
        add(store, "one-task", ["L1/relu"], 5.0)  # better, but over one task of two
        add(store, "partial", FULL, 9.0, status="stopped")
        add(store, "zero", [], 1.0)
        add(store, "test-run", FULL, 50.0)
        add(store, "excluded", FULL, 40.0)
        store.set_hidden("test-run")
    return path


@pytest.fixture(scope="module")
def site(store_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ranking-site")
    info = out.parent / "models.json"
    info.write_text(json.dumps({"openai:gpt-test": {"organisation": "Example Labs",
                                                    "release_date": "2026-01-02",
                                                    "notes": "temperature 0"}}))  # fmt: skip
    build_site(out, [store_path], exclude=["excluded"], model_info_path=info)
    return out


def whole_rows(site: Path) -> dict[str, tuple[bool, str]]:
    """run name -> (in the main table, row HTML) for the whole-task-set rows."""
    found = {}
    for match in ROW.finditer((site / "index.html").read_text()):
        main = 'data-main="1"' in match.group("attrs")
        found[cell(match.group("body"), "run").split()[0]] = (main, match.group("body"))
    return found


def test_only_comparable_finished_runs_share_the_main_ranking(site: Path) -> None:
    table = whole_rows(site)
    assert {name for name, (main, _) in table.items() if main} == {"full-a", "full-nocompile"}
    assert cell(table["full-a"][1], "rank") == "1"
    assert cell(table["full-nocompile"][1], "rank") == "2"
    # each other selection ranks among its own kind, behind the toggle
    assert cell(table["one-task"][1], "rank") == "1" and not table["one-task"][0]
    assert cell(table["partial"][1], "rank") == "1" and not table["partial"][0]
    assert "stopped" in cell(table["partial"][1], "scope")
    assert cell(table["zero"][1], "rank") == "–" and not table["zero"][0]  # over no task
    html = (site / "index.html").read_text()
    assert 'id="toggle-other"' in html and "(3)" in html  # three rows behind it


def test_an_unmeasured_compile_baseline_shows_a_dash(site: Path) -> None:
    table = whole_rows(site)
    unmeasured = table["full-nocompile"][1]
    assert [cell(unmeasured, f"compile-{p}") for p in ("0", "1", "1.5", "2")] == ["–"] * 4
    assert cell(unmeasured, "geomean-compile") == "–"
    assert cell(table["full-a"][1], "compile-0") == "100.0%"  # measured: stored figures


def test_hidden_and_excluded_runs_are_left_out(site: Path, store_path: Path) -> None:
    names = set(whole_rows(site))
    assert "test-run" not in names and "excluded" not in names and "full-a" in names
    assert not list((site / "runs").glob("test-run_*")) and not list((site / "runs").glob("excluded_*"))
    with open_store(store_path) as store:  # kept in the store
        assert store.get_run("test-run").hidden and not store.get_run("excluded").hidden


def test_model_metadata_cost_tokens_and_dates(site: Path) -> None:
    body = whole_rows(site)["full-a"][1]
    assert cell(body, "model") == "gpt-testExample Labs · 2026-01-02"  # name<br>organisation
    assert 'title="openai:gpt-test: temperature 0"' in body
    assert cell(body, "cost") == "$1.0000" and cell(body, "tokens") == "240"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", cell(body, "date"))
    assert re.search(r"Last updated \d{4}-\d\d-\d\d \d\d:\d\d UTC", (site / "index.html").read_text())


def test_without_model_info_the_provider_string_is_split(store_path: Path, tmp_path: Path) -> None:
    build_site(tmp_path, [store_path])
    body = whole_rows(tmp_path)["full-a"][1]
    assert cell(body, "model") == "gpt-testopenai"  # name<br>provider


def test_a_model_info_file_with_an_unknown_field_is_refused(store_path: Path, tmp_path: Path) -> None:
    info = tmp_path / "models.json"
    info.write_text(json.dumps({"openai:gpt-test": {"organization": "typo"}}))
    with pytest.raises(ModelInfoError, match="organization"):
        build_site(tmp_path / "out", [store_path], model_info_path=info)


def test_the_about_page_says_how_runs_are_made_checked_and_submitted(site: Path) -> None:
    about = (site / "about.html").read_text()
    for section in ("how-runs-are-made", "checks", "submit"):
        assert f'id="{section}"' in about
    assert "kerneltrials submit NAME" in about and "kerneltrials verify" in about
    assert 'href="about.html"' in (site / "index.html").read_text()
