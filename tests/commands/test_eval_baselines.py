"""``eval --baselines``: whether the run's candidates share one timed baseline
(docs/design/timing.md, "One baseline per run")."""

from __future__ import annotations

from typing import Any

import pytest
from click.testing import CliRunner

from kerneltrials.cli import cli
from kerneltrials.commands import eval as eval_module


@pytest.mark.parametrize(("given", "shared"), [([], True), (["--baselines", "shared"], True),
                                               (["--baselines", "per-check"], False)])
def test_the_flag_reaches_every_check_of_the_run(monkeypatch: pytest.MonkeyPatch,
                                                 given: list[str], shared: bool) -> None:
    seen: list[Any] = []
    monkeypatch.setattr(eval_module, "run_and_report", lambda config, _: seen.append(config))
    result = CliRunner().invoke(cli, ["eval", "--model", "reference", *given])
    assert result.exit_code == 0, result.output
    assert seen[0].check.reuse_baselines is shared


def test_an_unknown_choice_is_refused_with_the_valid_ones() -> None:
    result = CliRunner().invoke(cli, ["eval", "--model", "reference", "--baselines", "once"])
    assert result.exit_code == 2
    assert "'shared'" in result.output and "'per-check'" in result.output
