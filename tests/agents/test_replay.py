"""Recording live calls and replaying them."""

from __future__ import annotations

import warnings

import pytest

from kerneltrials.agents import (
    CallKey,
    Message,
    PromptDriftWarning,
    ProviderUserError,
    ReplayMiss,
    ReplayRecorder,
    resolve_provider,
)

from .fake_llm_server import text

pytestmark = pytest.mark.timeout(60)


def _ask(task: str) -> list[Message]:
    return [Message("system", "rules"), Message("user", f"Write ModelNew for {task}")]


KEYS = [
    CallKey("L1/relu", "one-shot", 0, 0),
    CallKey("L1/relu", "refine", 1, 0),
    CallKey("L1/softmax", "coder-judge", 0, 2, call="judge"),
]


@pytest.mark.parametrize("spec", ["openai:gpt-4.1", "anthropic:claude-haiku-4-5"])
def test_record_then_replay_reproduces_exactly(fake_llm, a_provider, tmp_path, spec):
    fake_llm.push(
        *(text(f"reply {i}", prompt_tokens=10 + i, completion_tokens=3 * i + 1) for i in range(3))
    )
    path = tmp_path / "run.jsonl"
    recorder = ReplayRecorder(a_provider(spec), path)
    live = [recorder.complete(_ask(key.task), key=key) for key in KEYS]
    assert len(path.read_text().splitlines()) == 3

    replay = resolve_provider(f"replay:{path}")
    with warnings.catch_warnings():
        warnings.simplefilter("error", PromptDriftWarning)
        replayed = [replay.complete(_ask(key.task), key=key) for key in reversed(KEYS)]
    assert list(reversed(replayed)) == live  # every field, latency and cost included
    assert len(fake_llm.requests) == 3  # replay never calls the server
    assert replay.drifted == []


def test_changed_prompt_warns_but_still_replays(fake_llm, a_provider, tmp_path):
    fake_llm.push(text("recorded"))
    path = tmp_path / "run.jsonl"
    ReplayRecorder(a_provider("openai:gpt-4.1"), path).complete(_ask("L1/relu"), key=KEYS[0])
    replay = resolve_provider(f"replay:{path}")
    with pytest.warns(PromptDriftWarning, match="task=L1/relu"):
        completion = replay.complete([Message("user", "a different machine")], key=KEYS[0])
    assert completion.text == "recorded" and replay.drifted == [KEYS[0]]


def test_missing_call_names_the_key(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text("\n")
    replay = resolve_provider(f"replay:{path}")
    with pytest.raises(ReplayMiss, match="task=L1/relu strategy=refine round=1 sample=0"):
        replay.complete(_ask("x"), key=KEYS[1])
    with pytest.raises(ProviderUserError, match="no call key"):
        replay.complete(_ask("x"))


def test_unreadable_replay_file_is_a_user_error(tmp_path):
    with pytest.raises(ProviderUserError, match="cannot read"):
        resolve_provider(f"replay:{tmp_path / 'absent.jsonl'}")
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"version": 1, "key": {"task": "t"}}\n')
    with pytest.raises(ProviderUserError, match=r"broken.jsonl:1"):
        resolve_provider(f"replay:{broken}")
