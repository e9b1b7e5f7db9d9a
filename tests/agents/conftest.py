"""Fixtures for the agents tests: a fake LLM server and providers pointed at it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from kerneltrials.agents import Provider, resolve_provider

from .fake_llm_server import FakeLLMServer

_ENV_VARS = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "OPENAI_BASE_URL",
    "ANTHROPIC_BASE_URL",
    "KERNELTRIALS_PRICES",
    "KERNELTRIALS_BASE_URL",
    "KERNELTRIALS_API_KEY",
)


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No real key, address or price file leaks into a test."""
    for name in _ENV_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def fake_llm() -> Iterator[FakeLLMServer]:
    server = FakeLLMServer().start()
    yield server
    server.stop()


@pytest.fixture
def a_provider(fake_llm: FakeLLMServer) -> Callable[..., Provider]:
    """``a_provider("openai:gpt-4.1", max_attempts=3)`` talking to the fake server, with
    a test key and quick backoff."""

    def make(spec: str, **options: Any) -> Provider:
        name = spec.partition(":")[0]
        base_url = fake_llm.url if name == "anthropic" else fake_llm.url + "/v1"
        defaults: dict[str, Any] = {"base_url": base_url, "backoff_base_s": 0.01, "timeout_s": 5.0}
        if name != "openai-compatible":
            defaults["api_key"] = "test-key"
        return resolve_provider(spec, **{**defaults, **options})

    return make
