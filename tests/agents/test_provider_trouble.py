"""Provider trouble as a user meets it (issue 22): a dead address or a rejected key stops
``eval`` before any work with a clear error and exit 2; a server failing every call is
shown on the console as it is retried, and the run exits 1 with the cause last."""

from __future__ import annotations

import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from kerneltrials.agents import EndpointUnreachable, RequestRefused, resolve_provider

from .fake_llm_server import FakeLLMServer, error

pytestmark = pytest.mark.timeout(300)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _eval(base_url: str, db: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "kerneltrials.cli", "eval", "--model",
               "openai-compatible:fake-model", "--base-url", base_url, "--tasks", "L1/relu",
               "--executor", "local", "--quick", "--no-compile-baseline", "--db", str(db),
               "--run", "trouble", *extra]
    return subprocess.run(command, capture_output=True, text=True, timeout=240,
                          env={**_clean_env(), "KERNELTRIALS_API_KEY": "k"})


def _clean_env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items()
            if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "KERNELTRIALS_BASE_URL")}


def _runs(db: Path) -> list[tuple[str, str]]:
    if not db.exists():
        return []
    with sqlite3.connect(db) as connection:
        return [tuple(row) for row in connection.execute("SELECT name, status FROM runs")]


def test_preflight_names_a_dead_address_and_a_rejected_key(fake_llm: FakeLLMServer) -> None:
    dead = f"http://127.0.0.1:{_free_port()}/v1"
    with pytest.raises(EndpointUnreachable, match="cannot reach"):
        resolve_provider("openai-compatible:m", base_url=dead).preflight()
    with pytest.raises(EndpointUnreachable, match="cannot reach"):
        resolve_provider("anthropic:m", base_url=dead, api_key="k").preflight()
    for spec, options in (("openai:m", {"base_url": fake_llm.url + "/v1", "api_key": "bad"}),
                          ("anthropic:m", {"base_url": fake_llm.url, "api_key": "bad"})):
        fake_llm.models_status = 401
        with pytest.raises(RequestRefused, match="rejected the API key"):
            resolve_provider(spec, **options).preflight()
        fake_llm.models_status = 200
        resolve_provider(spec, **options).preflight()  # a server that is there passes
    assert fake_llm.model_listings == 4
    assert fake_llm.requests == []  # no completion was asked for


def test_eval_on_a_dead_address_exits_2_before_any_run_exists(tmp_path: Path) -> None:
    db = tmp_path / "results.sqlite"
    result = _eval(f"http://127.0.0.1:{_free_port()}/v1", db)
    assert result.returncode == 2, result.stderr[-2000:]
    last = result.stderr.strip().splitlines()[-1]
    assert "cannot reach" in last and "--base-url" in last, result.stderr[-2000:]
    assert _runs(db) == []  # nothing started, nothing to resume


def test_eval_with_a_rejected_key_exits_2(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    fake_llm.models_status = 401
    result = _eval(fake_llm.url + "/v1", tmp_path / "results.sqlite")
    assert result.returncode == 2, result.stderr[-2000:]
    assert "rejected the API key" in result.stderr
    assert fake_llm.requests == []


def test_a_server_failing_every_call_is_shown_retrying_and_exits_1(
        fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    fake_llm.default = error(500, "the model is on fire")
    db = tmp_path / "results.sqlite"
    result = _eval(fake_llm.url + "/v1", db, "--max-attempts", "2")
    assert result.returncode == 1, result.stderr[-3000:]
    assert len(fake_llm.requests) == 2  # one call, tried twice
    # The retry was on the console as it happened, and the cause is in the final lines.
    assert "model call failed" in result.stderr and "try 2 of 2" in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert "stopped" in last and "HTTP 500" in last and "the model is on fire" in last, last
    assert "kerneltrials eval --resume --run trouble" in last
    assert _runs(db) == [("trouble", "stopped")]
