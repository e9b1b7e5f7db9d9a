"""The order of the stages' requests where both workers work at once (``_stages``): the
reference's work is sent while the candidate's request runs, and its replies are read
only after the candidate's, whose reading freezes the candidate's job, each with its whole
budget from then on. So a candidate cannot use the time its own request shares with the
reference to make the reference miss its timeout (an ``error``, never charged).
``test_parallel_setup.py`` runs the same stages end to end against native attacks."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest

from kerneltrials.tasks import ShapeConfig
from kerneltrials.verifier import CheckOptions
from kerneltrials.verifier import protocol as wire
from kerneltrials.verifier.harness import _stages
from kerneltrials.verifier.verdict import ConfigResult


@dataclass
class FakeJob:
    """Records what the stage asked of a worker, in one log shared by both."""

    role: str
    log: list[tuple[str, str, str, bool]]
    pending: list[Any] = field(default_factory=list)

    def send(self, message: wire.Request[Any], timeout_s: float) -> Any:
        self.log.append((self.role, "send", message.op, False))
        return message

    def reply(self, pending: Any, whole_budget: bool = False) -> Any:
        self.log.append((self.role, "reply", pending.op, whole_budget))
        return SimpleNamespace(work={})

    def request(self, message: wire.Request[Any], timeout_s: float) -> Any:
        return self.reply(self.send(message, timeout_s))


@pytest.fixture
def stage(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> Any:
    monkeypatch.setattr(_stages, "judge_run_reply", lambda *args: None)
    monkeypatch.setattr(_stages, "judge_outputs", lambda *args: None)
    monkeypatch.setattr(_stages, "load_trusted", lambda path: None)  # what judge_outputs reads
    monkeypatch.setattr(_stages, "bank_length", lambda task, configs: 0)  # no task to size
    session = SimpleNamespace(
        options=CheckOptions(), task=SimpleNamespace(path="task.py"), hidden_seed=1, configs=[],
        reference_work={}, inputs_path=lambda config, seed: str(tmp_path / f"in-{seed}"),
        path=lambda area, name: str(tmp_path / name), pool_path=lambda name: str(tmp_path / name),
        discard=lambda *paths: None)
    log: list[tuple[str, str, str, bool]] = []
    return session, FakeJob("reference", log), FakeJob("candidate", log), log


def _assert_candidate_read_first(log: list[tuple[str, str, str, bool]], *ops: str) -> None:
    candidate_reply = log.index(("candidate", "reply", ops[0], False))
    reference_sends = [i for i, entry in enumerate(log) if entry[:2] == ("reference", "send")]
    reference_replies = [i for i, entry in enumerate(log) if entry[:2] == ("reference", "reply")]
    assert [log[i][2] for i in reference_sends] == list(ops[1:]), log
    # Sent while the candidate's request runs; read after it, alone, with a whole budget.
    assert all(i < candidate_reply for i in reference_sends), log
    assert reference_replies and all(i > candidate_reply for i in reference_replies), log
    assert all(log[i][3] for i in reference_replies), log


def test_a_correctness_seeds_reference_work_is_read_after_the_candidates_run(stage: Any) -> None:
    session, reference, candidate, log = stage
    config = ShapeConfig(name="public-0", kind="public", overrides={})
    result = ConfigResult(name="public-0", kind="public", params={}, passed=True)
    _stages._check_one_seed(session, reference, candidate, config, 11, result, True, next_seed=12)
    _assert_candidate_read_first(log, "run", "reference", "inputs")
    log.clear()  # the last seed: no next inputs to draw
    _stages._check_one_seed(session, reference, candidate, config, 12, result, False)
    _assert_candidate_read_first(log, "run", "reference")


def test_a_configurations_reference_setup_is_read_after_the_candidates(stage: Any) -> None:
    session, reference, candidate, log = stage
    config = ShapeConfig(name="public-0", kind="public", overrides={})
    _stages._setup_config(session, reference, candidate, config)
    _assert_candidate_read_first(log, "setup", "setup", "pool_reference")
