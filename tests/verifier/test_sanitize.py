"""Candidate text in verdicts (``_sanitize``): capped, redacted, printable, JSON-safe."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest

from kerneltrials.sandbox import SandboxLimits, resolve_sandbox
from kerneltrials.verifier.harness._jobs import MESSAGE_CHARS, WorkerFailed, WorkerJob
from kerneltrials.verifier.harness._sanitize import MAX_LINE_CHARS, sanitize_candidate_text
from kerneltrials.verifier.protocol import Empty, Request

SECRET = "kt-sanitize-secret-0123456789"


@pytest.fixture
def secret_env(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("KT_TEST_API_KEY", SECRET)
    return SECRET


@pytest.mark.parametrize("limit", [0, 1, 5, 40, 100, 2000])
@pytest.mark.parametrize("size", [0, 10, 3000, 100_000])
def test_never_longer_than_the_limit(limit: int, size: int) -> None:
    text = ("line of output\n" * (size // 15 + 1))[:size]
    assert len(sanitize_candidate_text(text, limit)) <= limit


def test_head_and_tail_are_kept_with_a_marker_between() -> None:
    text = "HEAD\n" + "m" * 300 + "\n" * 200 + "TAIL"
    out = sanitize_candidate_text(text, 200)
    assert out.startswith("HEAD") and out.endswith("TAIL") and "characters cut]" in out


def test_short_plain_text_is_unchanged() -> None:
    text = "RuntimeError: shape mismatch\n\tat line 3"
    assert sanitize_candidate_text(text) == text


def test_terminal_escapes_and_control_characters_are_removed() -> None:
    text = "\x1b[2J\x1b[31mred\x1b[0m \x1b]0;title\x07bell\x07 nul\x00 cr\rover \x9b1m del\x7f"
    out = sanitize_candidate_text(text)
    assert out == "red bell? nul? cr?over  del?"


def test_bidi_overrides_invisibles_and_lone_surrogates_are_removed() -> None:
    out = sanitize_candidate_text("a\u202eb\u2066c\u200bd\ud800e")
    assert out == "a?b?cd?e"
    json.dumps(out, ensure_ascii=False).encode("utf-8")  # a surrogate would fail here


def test_secrets_are_redacted_even_when_split_by_escapes(secret_env: str) -> None:
    split = secret_env[:5] + "\x1b[0m" + secret_env[5:10] + "\u200b" + secret_env[10:]
    out = sanitize_candidate_text(f"leak {secret_env} and {split}")
    assert secret_env not in out and out.count("<redacted:KT_TEST_API_KEY>") == 2


def test_long_lines_are_cut() -> None:
    out = sanitize_candidate_text("x" * 1500 + "\nshort", 10_000)
    first, second = out.split("\n")
    assert len(first) < MAX_LINE_CHARS + 40 and first.endswith("[1100 characters cut]")
    assert second == "short"


def test_host_prefixes_are_shortened() -> None:
    home = os.path.expanduser("~")
    out = sanitize_candidate_text(f"{sys.prefix}/include/x.h {home}/secret {home}suffix")
    assert out.startswith("<python>/include/x.h ~/secret ")
    assert out.endswith(f"{home}suffix")  # only whole path components


@pytest.mark.timeout(120)
def _op_named(name: str) -> Request[Empty]:
    """A request of an operation no worker knows (its name is echoed in the refusal)."""

    @dataclass(frozen=True)
    class Unknown(Request[Empty]):
        op: ClassVar[str] = name
        reply_type: ClassVar[type[Any]] = Empty

    return Unknown()


def test_worker_failure_text_is_sanitised_on_arrival(tmp_path: Path, secret_env: str) -> None:
    """A real worker answers an unknown op by echoing it: the echo is candidate-sized text
    with a secret in it, and arrives in :class:`WorkerFailed` capped and redacted."""
    worker = WorkerJob(resolve_sandbox("process"), "candidate", tmp_path, [],
                       SandboxLimits(wall_timeout_s=60.0))
    try:
        with pytest.raises(WorkerFailed) as failure:
            worker.request(_op_named(f"{secret_env} " + "x" * 20_000), 60.0)
    finally:
        worker.close()
    message = str(failure.value)
    assert len(message) <= MESSAGE_CHARS and "unknown op" in message
    assert secret_env not in message and "<redacted:KT_TEST_API_KEY>" in message
