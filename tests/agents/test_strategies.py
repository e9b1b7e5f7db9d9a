"""The built-in strategies against the fake server, with a tiny judge in place of the verifier."""

from __future__ import annotations

import re

import pytest

from kerneltrials.agents import (
    NO_CODE_REASON,
    ProviderUserError,
    ReplayRecorder,
    StrategyContext,
    best_attempt,
    resolve_provider,
    resolve_strategy,
)
from kerneltrials.verifier import Verdict

from .fake_llm_server import text

pytestmark = pytest.mark.timeout(60)

CONTEXT = StrategyContext(
    "L1/add", "class Model: ...", "cpu", "CPU: fake", ({"n": 16},), max_tokens=1000,
    policy="strict",
)


def candidate(marker: str) -> str:
    return f"Here:\n```python\nclass ModelNew:\n    pass  # {marker}\n```"


def tiny_verify(source: str) -> Verdict:
    """Correct iff the source says CORRECT; its speedup is written in it."""
    hidden = {
        "name": "hidden-0",
        "kind": "hidden",
        "params": {"n": 4242},
        "passed": "CORRECT" in source,
    }
    if "CORRECT" in source:
        speedup = float(re.search(r"SPEEDUP=([\d.]+)", source).group(1))
        return Verdict(task="L1/add", backend="cpu", status="correct", speedup=speedup,
                       reasons=[], configs=[hidden])
    public = {"name": "public-0", "kind": "public", "params": {"n": 16}, "passed": False,
              "max_abs_err": 0.5, "detail": "worst mismatch at 3"}  # fmt: skip
    return Verdict(task="L1/add", backend="cpu", status="incorrect",
                   reasons=["correctness:max_abs_err=0.5"], configs=[public, hidden])


def test_one_shot_is_greedy_and_verifies_the_extracted_code(fake_llm, a_provider):
    fake_llm.push(text(candidate("CORRECT SPEEDUP=1.5"), prompt_tokens=100, completion_tokens=20))
    (attempt,) = resolve_strategy("one-shot").run(
        CONTEXT, a_provider("openai:gpt-4.1"), tiny_verify
    )
    assert attempt.verdict.status == "correct" and "class ModelNew" in attempt.source
    assert (attempt.prompt_tokens, attempt.completion_tokens) == (100, 20)
    body = fake_llm.requests[0].body
    assert body["temperature"] == 0.0 and body["max_tokens"] == 1000
    assert "class Model: ..." in body["messages"][1]["content"]
    assert attempt.messages[-1].content == candidate("CORRECT SPEEDUP=1.5")


def test_reply_without_code_becomes_no_code_verdict(fake_llm, a_provider):
    fake_llm.push(text("Sorry, I cannot do that."))
    verified = []
    (attempt,) = resolve_strategy("one-shot").run(
        CONTEXT, a_provider("openai:gpt-4.1"), lambda s: verified.append(s) or tiny_verify(s)
    )
    assert attempt.source is None and not verified
    assert attempt.verdict.status == "incorrect" and attempt.verdict.reasons == [
        NO_CODE_REASON
    ]
    # stamped with the task's policy (L1 is strict), not the model's default "mixed"
    assert attempt.verdict.policy == "strict" and attempt.verdict.task == "L1/add"
    assert attempt.verdict.compiled is False and attempt.verdict.speedup is None


def test_a_context_without_policy_cannot_make_a_no_code_verdict(fake_llm, a_provider):
    fake_llm.push(text("Sorry, I cannot do that."))
    bare = StrategyContext("L1/add", "class Model: ...", "cpu", "CPU: fake")
    with pytest.raises(ValueError, match="needs its policy"):
        resolve_strategy("one-shot").run(bare, a_provider("openai:gpt-4.1"), tiny_verify)


def test_best_of_n_samples_n_times_and_keeps_the_best(fake_llm, a_provider):
    fake_llm.push(text(candidate("wrong")), text(candidate("CORRECT SPEEDUP=1.2")),
                  text(candidate("CORRECT SPEEDUP=2.5")), text("no code"))  # fmt: skip
    attempts = resolve_strategy("best-of-n", samples=4).run(
        CONTEXT, a_provider("openai:gpt-4.1"), tiny_verify
    )
    assert [a.sample for a in attempts] == [0, 1, 2, 3]
    assert best_attempt(attempts).verdict.speedup == 2.5
    assert all(r.body["temperature"] == 0.8 for r in fake_llm.requests)


def test_refine_feeds_back_public_failures_and_hides_hidden_ones(fake_llm, a_provider):
    fake_llm.push(
        text(candidate("wrong")),
        text(candidate("CORRECT SPEEDUP=1.1")),
        text(candidate("CORRECT SPEEDUP=1.9")),
    )
    attempts = resolve_strategy("refine", rounds=3).run(
        CONTEXT, a_provider("anthropic:claude-haiku-4-5"), tiny_verify
    )
    assert [a.verdict.status for a in attempts] == ["incorrect", "correct", "correct"]
    second = fake_llm.requests[1].body["messages"]
    assert second[-2] == {"role": "assistant", "content": candidate("wrong")}
    feedback = second[-1]["content"]
    assert (
        "worst mismatch at 3" in feedback
        and "Hidden configurations: 0 passed, 1 failed" in feedback
    )
    assert "4242" not in feedback and "Fix the issue" in feedback
    assert "Make it faster" in fake_llm.requests[2].body["messages"][-1]["content"]
    assert best_attempt(attempts).round == 2


def test_refine_can_stop_when_correct(fake_llm, a_provider):
    fake_llm.push(text(candidate("CORRECT SPEEDUP=1.1")))
    attempts = resolve_strategy("refine", rounds=4, stop_when_correct=True).run(
        CONTEXT, a_provider("openai:gpt-4.1"), tiny_verify
    )
    assert len(attempts) == 1 and len(fake_llm.requests) == 1


def test_coder_judge_passes_the_critique_to_the_coder(fake_llm, a_provider):
    critique = '{"critical_issue": "off-by-one in the tail", "why_it_matters": "wrong last element", "minimal_fix": "use < n"}'
    fake_llm.push(
        text(candidate("wrong")),
        text(f"Review:\n{critique}"),
        text(candidate("CORRECT SPEEDUP=1.7")),
    )
    attempts = resolve_strategy("coder-judge", rounds=2).run(
        CONTEXT, a_provider("openai:gpt-4.1"), tiny_verify
    )
    assert len(attempts) == 2 and len(fake_llm.requests) == 3  # coder, judge, coder
    judge_prompt = fake_llm.requests[1].body["messages"]
    assert "JSON" in judge_prompt[0]["content"] and "# wrong" in judge_prompt[1]["content"]
    coder_prompt = fake_llm.requests[2].body["messages"][-1]["content"]
    assert (
        "critical_issue: off-by-one in the tail" in coder_prompt
        and "minimal_fix: use < n" in coder_prompt
    )
    assert "4242" not in coder_prompt and "4242" not in judge_prompt[1]["content"]
    assert attempts[0].calls[-1].name == "coder"
    assert best_attempt(attempts) is attempts[1]


def test_a_recorded_strategy_run_replays_identically(fake_llm, a_provider, tmp_path):
    fake_llm.push(
        text(candidate("wrong")), text("not json at all"), text(candidate("CORRECT SPEEDUP=1.3"))
    )
    path = tmp_path / "run.jsonl"
    live = resolve_strategy("coder-judge", rounds=2).run(
        CONTEXT, ReplayRecorder(a_provider("openai:gpt-4.1"), path), tiny_verify
    )
    replayed = resolve_strategy("coder-judge", rounds=2).run(
        CONTEXT, resolve_provider(f"replay:{path}"), tiny_verify
    )
    assert replayed == live and len(fake_llm.requests) == 3
    assert "not json at all" in fake_llm.requests[2].body["messages"][-1]["content"]


def test_user_strategy_file_is_loaded(tmp_path):
    agent = tmp_path / "my_agent.py"
    agent.write_text(
        "from kerneltrials.agents import Strategy\n"
        "class Mine(Strategy):\n"
        "    name = 'mine'\n"
        "    def __init__(self, depth=1):\n"
        "        self.depth = depth\n"
        "    def run(self, context, provider, verify):\n"
        "        return []\n"
    )
    assert resolve_strategy(f"{agent}:Mine", depth=3).depth == 3
    with pytest.raises(ProviderUserError, match="no Strategy subclass named 'Nope'"):
        resolve_strategy(f"{agent}:Nope")


def test_unknown_strategy_lists_the_valid_names():
    with pytest.raises(ProviderUserError, match="best-of-n, coder-judge, one-shot, refine"):
        resolve_strategy("two-shot")
