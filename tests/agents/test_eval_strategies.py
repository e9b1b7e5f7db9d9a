"""Each strategy completes a real eval (real verifier, real SDK) against the fake server.

Candidates come from the shared test C++ source, so every build is a cache hit after the
first. The local executor keeps these fast; Ray is exercised in tests/scheduler.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from kerneltrials.results import open_store
from kerneltrials.scheduler import EvalConfig, run_eval
from kerneltrials.verifier import CheckOptions
from tests.scheduler.evalkit import reply_with, write_tasks
from tests.timings import ONE_CALL_TIMING

from .fake_llm_server import FakeLLMServer, text

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

CHECK = CheckOptions(timing=ONE_CALL_TIMING, compile_baseline=False, seeds=1, call_timeout_s=60)


@pytest.fixture
def tasks(tmp_path: Path) -> str:
    paths = write_tasks(tmp_path, {"small_a": 97, "small_b": 89})
    return ",".join(str(p) for p in paths)


def _config(fake_llm: FakeLLMServer, tasks: str, tmp_path: Path, agent: str,
            **changes: object) -> EvalConfig:
    settings: dict[str, object] = dict(
        model="openai:gpt-4.1", agent=agent, tasks=tasks, db=str(tmp_path / "db.sqlite"),
        run_name=f"run-{agent.replace('/', '_').replace(':', '_')}", executor="local",
        hidden_seed=3, max_concurrency=1, check=CHECK,
        provider_options={"base_url": fake_llm.url + "/v1", "api_key": "test-key",
                          "backoff_base_s": 0.01})
    settings.update(changes)
    return EvalConfig(**settings)  # type: ignore[arg-type]


def _attempts(config: EvalConfig) -> list:
    return open_store(config.db).attempts_for_run(config.run_name or "")


def test_one_shot_eval_stores_tokens_and_cost_from_the_servers_usage(
        fake_llm: FakeLLMServer, tasks: str, tmp_path: Path) -> None:
    fake_llm.default = text(reply_with("relu_ok"), prompt_tokens=1200, completion_tokens=300)
    config = _config(fake_llm, tasks, tmp_path, "one-shot")
    summary = run_eval(config)
    attempts = _attempts(config)
    assert summary.status == "finished" and [a.status for a in attempts] == ["correct"] * 2
    assert sum(a.prompt_tokens for a in attempts) == 2400 == 1200 * len(fake_llm.requests)
    assert sum(a.completion_tokens for a in attempts) == 600
    # gpt-4.1 is in the price table: cost follows from the usage fields
    assert sum(a.cost_usd or 0 for a in attempts) > 0
    report = summary.score.to_json()
    assert report["tokens"] == {"prompt": 2400, "completion": 600}
    assert report["cost_usd"] == pytest.approx(sum(a.cost_usd for a in attempts))


def test_best_of_n_keeps_every_sample(fake_llm: FakeLLMServer, tasks: str, tmp_path: Path) -> None:
    fake_llm.push(text(reply_with("relu_wrong")), text(reply_with("relu_ok")),
                  text(reply_with("relu_ok")), text("no code, sorry"))
    config = _config(fake_llm, tasks, tmp_path, "best-of-n", strategy_options={"samples": 2})
    run_eval(config)
    statuses = sorted((a.task_id, a.sample, a.status) for a in _attempts(config))
    assert [s for _, _, s in statuses] == ["incorrect", "correct", "correct", "incorrect"]
    # the run is scored on the best sample per task:
    assert open_store(config.db).load_scores(config.run_name)[0].report["fast_p"]["0"] == 1.0


def test_refine_feeds_the_failure_back(fake_llm: FakeLLMServer, tasks: str, tmp_path: Path) -> None:
    fake_llm.push(text(reply_with("relu_wrong")), text(reply_with("relu_ok")),
                  text(reply_with("relu_ok")), text(reply_with("relu_ok")))
    config = _config(fake_llm, tasks, tmp_path, "refine", strategy_options={"rounds": 2})
    run_eval(config)
    attempts = _attempts(config)
    first = [a for a in attempts if a.task_id == attempts[0].task_id]
    assert [(a.round, a.status) for a in first] == [(0, "incorrect"), (1, "correct")]
    second_prompt = json.dumps(fake_llm.requests[1].body["messages"])
    assert "incorrect" in second_prompt and "max_abs_err" in second_prompt


def test_coder_judge_runs_the_judge_and_stores_its_cost(
        fake_llm: FakeLLMServer, tasks: str, tmp_path: Path) -> None:
    judge = '{"critical_issue": "negative slope", "why_it_matters": "wrong", "minimal_fix": "0"}'
    fake_llm.push(text(reply_with("relu_wrong")), text(judge), text(reply_with("relu_ok")),
                  text(reply_with("relu_ok")), text(judge), text(reply_with("relu_ok")))
    config = _config(fake_llm, tasks, tmp_path, "coder-judge", strategy_options={"rounds": 2})
    run_eval(config)
    attempts = _attempts(config)
    assert len(fake_llm.requests) == 6 and len(attempts) == 4
    assert sum(a.prompt_tokens for a in attempts) == 11 * 6  # judge calls are counted too
    revision = json.dumps(fake_llm.requests[2].body["messages"])
    assert "negative slope" in revision


def test_max_cost_stops_the_run_resumably(fake_llm: FakeLLMServer, tasks: str,
                                          tmp_path: Path) -> None:
    fake_llm.default = text(reply_with("relu_ok"), prompt_tokens=1_000_000, completion_tokens=0)
    config = _config(fake_llm, tasks, tmp_path, "one-shot", max_cost_usd=3.0)
    summary = run_eval(config)  # gpt-4.1: 2 USD per million prompt tokens
    assert summary.status == "stopped" and "max-cost" in (summary.stop_reason or "")
    assert len(fake_llm.requests) == 1 and len(_attempts(config)) == 1
    resumed = run_eval(_config(fake_llm, tasks, tmp_path, "one-shot", max_cost_usd=10.0,
                               resume=True))
    assert resumed.status == "finished" and len(_attempts(config)) == 2


def test_replay_reproduces_a_recorded_run(fake_llm: FakeLLMServer, tasks: str,
                                          tmp_path: Path) -> None:
    fake_llm.push(text(reply_with("relu_ok")), text(reply_with("relu_wrong")))
    recording = tmp_path / "recorded.jsonl"
    live = _config(fake_llm, tasks, tmp_path, "one-shot", record_path=str(recording))
    run_eval(live)
    replayed = _config(fake_llm, tasks, tmp_path, "one-shot", model=f"replay:{recording}",
                       run_name="replayed", provider_options={})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # same prompts: no drift warning may fire
        run_eval(replayed)
    original = [(a.task_id, a.source, a.status, a.prompt_tokens) for a in _attempts(live)]
    again = [(a.task_id, a.source, a.status, a.prompt_tokens) for a in _attempts(replayed)]
    assert original == again and len(fake_llm.requests) == 2


def test_a_user_strategy_file_runs(fake_llm: FakeLLMServer, tasks: str, tmp_path: Path) -> None:
    strategy = tmp_path / "my_strategy.py"
    strategy.write_text(
        "from kerneltrials.agents import Strategy\n\n"
        "class TwoTries(Strategy):\n"
        "    name = 'two-tries'\n"
        "    def run(self, context, provider, verify):\n"
        "        messages = self.first_messages(context)\n"
        "        attempts = []\n"
        "        for round in range(2):\n"
        "            call = self.ask(provider, context, messages, self.key(context, round, 0), 0.0)\n"
        "            attempts.append(self.judge_reply(context, verify, round, 0, [call]))\n"
        "        return attempts\n")
    fake_llm.default = text(reply_with("relu_ok"))
    config = _config(fake_llm, tasks, tmp_path, f"{strategy}:TwoTries", run_name="mine")
    run_eval(config)
    assert [(a.round, a.status) for a in _attempts(config)] == [
        (0, "correct"), (1, "correct"), (0, "correct"), (1, "correct")]
