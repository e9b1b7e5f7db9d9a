"""``kerneltrials runs hide`` and ``leaderboard build --exclude / --model-info`` against a
real store: a hidden run stays in the store and leaves the built site."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kerneltrials.cli import cli
from kerneltrials.leaderboard import bundle_from_store
from kerneltrials.results import open_store

pytestmark = pytest.mark.timeout(120)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), prog_name="kerneltrials")


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "results.sqlite"
    with open_store(path) as store:
        for name in ("real", "smoke", "other"):
            store.create_run(name=name, model="openai:gpt-test", agent="one-shot",
                             backend="cpu", profile="cpu", task_ids=[])  # fmt: skip
            store.finish_run(name)
    return path


def site_runs(out: Path) -> set[str]:
    """The runs that have a page (``runs/NAME_HASH.html``)."""
    return {page.stem.rsplit("_", 1)[0] for page in (out / "runs").glob("*.html")}


def test_hide_and_unhide_change_only_the_flag(db: Path) -> None:
    result = invoke("runs", "hide", "smoke", "--db", str(db), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == [{"run": "smoke", "hidden": True}]
    with open_store(db) as store:
        before = bundle_from_store(store, "smoke").content_sha256
        assert store.get_run("smoke").hidden and not store.get_run("real").hidden
    result = invoke("runs", "hide", "smoke", "--unhide", "--db", str(db))
    assert result.exit_code == 0 and "smoke: shown on the leaderboard" in result.output
    with open_store(db) as store:
        assert not store.get_run("smoke").hidden
        assert bundle_from_store(store, "smoke").content_sha256 == before  # not in the bundle


def test_hide_an_unknown_run_is_exit_2_and_changes_nothing(db: Path) -> None:
    result = invoke("runs", "hide", "smoke", "nosuch", "--db", str(db))
    assert result.exit_code == 2 and "nosuch" in result.output
    with open_store(db) as store:
        assert not store.get_run("smoke").hidden  # every name is checked before any change


def test_leaderboard_build_leaves_out_hidden_and_excluded_runs(db: Path, tmp_path: Path) -> None:
    assert invoke("runs", "hide", "smoke", "--db", str(db)).exit_code == 0
    info = tmp_path / "models.json"
    info.write_text(json.dumps({"gpt-test": {"organisation": "Example Labs"}}))
    out = tmp_path / "site"
    result = invoke("leaderboard", "build", "--db", str(db), "--out", str(out),
                    "--exclude", "other", "--model-info", str(info), "--json")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["runs"] == 1
    assert site_runs(out) == {"real"}
    assert "Example Labs" in (out / "index.html").read_text()  # found by the bare name


def test_a_bad_model_info_file_is_exit_2(db: Path, tmp_path: Path) -> None:
    info = tmp_path / "models.json"
    info.write_text("[1, 2]")
    result = invoke("leaderboard", "build", "--db", str(db), "--out", str(tmp_path / "site"),
                    "--model-info", str(info))  # fmt: skip
    assert result.exit_code == 2 and "expected an object" in result.output
