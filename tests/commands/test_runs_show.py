"""``kerneltrials runs show RUN TASK``: one attempt in full, from a real store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kerneltrials.cli import cli
from kerneltrials.results import open_store
from kerneltrials.verifier import Status, Verdict
from kerneltrials.verifier.verdict import ConfigResult, TimingStats

pytestmark = pytest.mark.timeout(120)

SOURCE = "import torch\n\nclass ModelNew(torch.nn.Module):\n    pass  # the marker line\n"
REPLY = "Here is a fused kernel.\n```python\n" + SOURCE + "```"


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), prog_name="kerneltrials")


def verdict(status: Status, speedup: float | None) -> Verdict:
    timed = {"candidate": TimingStats(median=0.5, iqr=0.01, n=20),
             "eager": TimingStats(median=0.75, iqr=0.02, n=20)}
    return Verdict(task="L1/relu", backend="cpu", status=status, speedup=speedup,
                   policy="strict", reasons=["note:first reason"],
                   configs=[ConfigResult(name="public-0", kind="public", params={"rows": 8},
                                         passed=True, max_abs_err=1e-7, times_ms=timed),
                            ConfigResult(name="hidden-0", kind="hidden", params={"rows": 9},
                                         passed=False, detail="max_abs_err=3 on output0")])


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "results.sqlite"
    with open_store(path) as store:
        store.create_run(name="r1", model="openai:gpt-test", agent="one-shot", backend="cpu",
                         profile="cpu", task_ids=["L1/relu", "L1/softmax"])
        store.record_attempt("r1", "L1/relu", verdict(Status.CORRECT, 1.5), source=SOURCE,
                             transcript=[{"role": "user", "content": "write a kernel"},
                                         {"role": "assistant", "content": REPLY}])
        store.record_attempt("r1", "L1/relu", verdict(Status.INCORRECT, None), round=1,
                             source=None, transcript=[{"role": "assistant", "content": [
                                 {"type": "text", "text": "no code this time"}]}])
    return path


def test_show_task_prints_reply_source_configurations_and_reasons(
        db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kerneltrials.commands import _common

    # The content, not the layout: as wide as output to a file, whatever console width
    # an earlier test in this process left (a narrow one folds cells across lines).
    monkeypatch.setattr(_common.stdout_console, "width", _common.PIPE_WIDTH)
    result = invoke("runs", "show", "r1", "L1/relu", "--db", str(db))
    assert result.exit_code == 0, result.output
    for expected in ("Here is a fused kernel.", "the marker line", "public-0", "hidden-0",
                     "max_abs_err=3 on output0", "0.75", "note:first reason", "round 1",
                     "no code this time", "(no source: the reply held no code)"):
        assert expected in result.output, expected


def test_show_task_json_has_the_full_verdicts(db: Path) -> None:
    result = invoke("runs", "show", "r1", "L1/relu", "--db", str(db), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [a["round"] for a in data["attempts"]] == [0, 1]
    first = data["attempts"][0]
    assert first["source"] == SOURCE and first["reply"] == REPLY
    assert first["verdict"]["configs"][0]["times_ms"]["eager"]["median"] == 0.75
    assert data["attempts"][1]["reply"] == "no code this time"


def test_show_a_task_without_attempts_is_exit_2_naming_the_attempted_ones(db: Path) -> None:
    result = invoke("runs", "show", "r1", "L1/softmax", "--db", str(db))
    assert result.exit_code == 2
    assert "no attempt at task 'L1/softmax'" in result.output and "L1/relu" in result.output


def test_show_without_a_task_still_lists_the_attempts(db: Path) -> None:
    result = invoke("runs", "show", "r1", "--db", str(db), "--json")
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.output)["attempts"]) == 2
