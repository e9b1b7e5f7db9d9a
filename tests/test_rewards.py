"""The RL reward: a pure, bounded function of the verdict; and the batch API."""

from __future__ import annotations

import math

import pytest

import kerneltrials
from kerneltrials.rewards import reward_from_verdict
from kerneltrials.verifier import CheckOptions, Verdict
from tests.timings import ONE_CALL_TIMING
from tests.verifier.candidates import candidate


@pytest.mark.parametrize(
    ("verdict", "expected"),
    [
        ({"status": "incorrect", "speedup": 9.0}, 0.0),  # incorrect-but-fast earns nothing
        ({"status": "rejected"}, 0.0),
        ({"status": "error"}, 0.0),
        ({"status": "correct", "speedup": None}, 0.25),
        ({"status": "correct", "speedup": math.nan}, 0.25),
        ({"status": "correct", "speedup": 0.1}, 0.25),  # correct-but-slow: floor
        ({"status": "correct", "speedup": 0.5}, 0.25),
        ({"status": "correct", "speedup": 0.97}, 0.5),  # inside the noise band
        ({"status": "correct", "speedup": 1.0}, 0.5),
        ({"status": "correct", "speedup": 1.04}, 0.5),
        ({"status": "correct", "speedup": 2.0}, 0.75),
        ({"status": "correct", "speedup": 4.0}, 1.0),
        ({"status": "correct", "speedup": 50.0}, 1.0),  # bounded
        ({"status": "correct", "speedup": 8.0, "suspicious": True}, 0.5),
    ],
)
def test_reward_table(verdict: dict, expected: float) -> None:
    assert reward_from_verdict(verdict) == pytest.approx(expected)


def test_reward_is_monotone_in_speedup() -> None:
    values = [reward_from_verdict({"status": "correct", "speedup": s})
              for s in (0.25, 0.6, 1.2, 1.5, 2.5, 3.5)]
    assert values == sorted(values) and len(set(values)) == len(values)


def test_a_verdict_object_earns_what_its_json_form_earns() -> None:
    fast = Verdict(task="L1/relu", backend="cpu", status="correct", speedup=2.0)
    flagged = fast.model_copy(update={"speedup": 8.0, "suspicious": True})
    assert reward_from_verdict(fast) == reward_from_verdict(fast.to_dict()) == 0.75
    assert reward_from_verdict(flagged) == 0.5
    assert reward_from_verdict(Verdict.no_code("L1/relu", "cpu", "strict")) == 0.0


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_reward_many_scores_a_batch_through_the_scheduler() -> None:
    options = CheckOptions(timing=ONE_CALL_TIMING, compile_baseline=False, hidden_seed=1)
    rewards = kerneltrials.reward_many(
        [("L1/relu", candidate("relu_ok")), ("L1/relu", candidate("relu_wrong")),
         ("L1/relu", "not python at all (")], options=options, executor="local")
    assert rewards[0] >= 0.25 and rewards[1] == 0.0 and rewards[2] == 0.0
