"""Providers through the real openai / anthropic SDKs against the fake server."""

from __future__ import annotations

import threading

import pytest

from kerneltrials.agents import (
    Message,
    MissingAPIKey,
    ProviderUnavailable,
    ProviderUserError,
    RequestRefused,
    UnknownModel,
    resolve_provider,
)

from .fake_llm_server import Reply, error, malformed, text

pytestmark = pytest.mark.timeout(60)

ASK = [Message("system", "You write kernels."), Message("user", "Write ModelNew.")]
BOTH = ["openai:gpt-4.1", "anthropic:claude-haiku-4-5"]


def test_openai_happy_path_sends_the_request_and_reads_usage(fake_llm, a_provider):
    fake_llm.push(text("class ModelNew: ...", prompt_tokens=120, completion_tokens=30))
    completion = a_provider("openai:gpt-4.1").complete(ASK, temperature=0.3, max_tokens=500)
    assert completion.text == "class ModelNew: ..."
    assert (completion.prompt_tokens, completion.completion_tokens) == (120, 30)
    assert completion.cost_usd == pytest.approx((120 * 2.0 + 30 * 8.0) / 1e6)
    assert completion.cost_known and completion.model == "gpt-4.1"
    assert completion.raw_finish_reason == "stop" and completion.attempts == 1
    assert completion.latency_s > 0
    (request,) = fake_llm.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer test-key"
    assert request.body["messages"] == [
        {"role": "system", "content": "You write kernels."},
        {"role": "user", "content": "Write ModelNew."},
    ]
    assert request.body["max_tokens"] == 500 and request.body["temperature"] == 0.3


def test_openai_reasoning_model_gets_reasoning_parameters(fake_llm, a_provider):
    fake_llm.push(text("ok"))
    a_provider("openai:o4-mini").complete(
        ASK, temperature=0.7, max_tokens=900, reasoning_effort="high"
    )
    body = fake_llm.requests[0].body
    assert body["max_completion_tokens"] == 900 and body["reasoning_effort"] == "high"
    assert "max_tokens" not in body and "temperature" not in body


def test_anthropic_happy_path_separates_the_system_prompt(fake_llm, a_provider):
    fake_llm.push(text("hello", prompt_tokens=50, completion_tokens=5, finish_reason="max_tokens"))
    completion = a_provider("anthropic:claude-haiku-4-5").complete(
        ASK, temperature=0.5, max_tokens=64
    )
    assert completion.text == "hello" and completion.raw_finish_reason == "max_tokens"
    assert completion.cost_usd == pytest.approx((50 * 1.0 + 5 * 5.0) / 1e6)
    (request,) = fake_llm.requests
    assert request.path == "/v1/messages"
    assert request.body["system"] == "You write kernels."
    assert request.body["messages"] == [{"role": "user", "content": "Write ModelNew."}]
    assert request.body["max_tokens"] == 64
    assert "temperature" not in request.body  # the API version SDK 2.x speaks rejects it


@pytest.mark.parametrize("spec", BOTH)
def test_token_and_cost_totals_match_the_server_usage(fake_llm, a_provider, spec):
    usages = [(100, 20), (2500, 900), (7, 1)]
    fake_llm.push(
        *(text(f"r{i}", prompt_tokens=p, completion_tokens=c) for i, (p, c) in enumerate(usages))
    )
    provider = a_provider(spec)
    completions = [provider.complete(ASK, max_tokens=100) for _ in usages]
    assert sum(c.prompt_tokens for c in completions) == sum(p for p, _ in usages)
    assert sum(c.completion_tokens for c in completions) == sum(c for _, c in usages)
    price = provider.prices.lookup(provider.model)
    expected = (
        sum(p * price.input_usd_per_mtok + c * price.output_usd_per_mtok for p, c in usages) / 1e6
    )
    assert sum(c.cost_usd for c in completions) == pytest.approx(expected)


@pytest.mark.parametrize("spec", BOTH)
def test_rate_limit_waits_at_least_retry_after(fake_llm, a_provider, spec):
    fake_llm.push(error(429, "slow down", headers={"retry-after": "0.2"}), text("after the wait"))
    completion = a_provider(spec).complete(ASK)
    assert completion.text == "after the wait" and completion.attempts == 2
    first, second = fake_llm.requests
    assert second.received_at - first.received_at >= 0.2


def test_retry_after_ms_is_preferred(fake_llm, a_provider):
    fake_llm.push(error(429, headers={"retry-after-ms": "250", "retry-after": "0"}), text("ok"))
    a_provider("openai:gpt-4.1").complete(ASK)
    first, second = fake_llm.requests
    assert second.received_at - first.received_at >= 0.25


@pytest.mark.parametrize("spec", BOTH)
def test_server_errors_are_retried_then_succeed(fake_llm, a_provider, spec):
    fake_llm.push(error(500), error(503), text("third time"))
    completion = a_provider(spec).complete(ASK)
    assert completion.text == "third time" and completion.attempts == 3
    assert len(fake_llm.requests) == 3


@pytest.mark.parametrize("spec", BOTH)
def test_timeouts_are_retried(fake_llm, a_provider, spec):
    fake_llm.push(text("too late", delay_s=1.5), text("in time"))
    completion = a_provider(spec, timeout_s=0.3).complete(ASK)
    assert completion.text == "in time" and completion.attempts == 2


@pytest.mark.parametrize("spec", BOTH)
def test_exhausted_retries_raise_provider_unavailable(fake_llm, a_provider, spec):
    fake_llm.push(*[error(503, "overloaded")] * 3)
    with pytest.raises(ProviderUnavailable) as raised:
        a_provider(spec, max_attempts=3).complete(ASK)
    assert raised.value.attempts == 3 and len(fake_llm.requests) == 3
    assert "unavailable after 3 tries" in str(raised.value) and "503" in str(raised.value)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize("spec", BOTH)
def test_malformed_reply_is_retried_then_reported(fake_llm, a_provider, spec):
    fake_llm.push(malformed(), text("well formed"))
    assert a_provider(spec).complete(ASK).text == "well formed"
    fake_llm.push(malformed(), malformed())
    with pytest.raises(ProviderUnavailable, match="malformed reply"):
        a_provider(spec, max_attempts=2).complete(ASK)


@pytest.mark.parametrize(
    ("spec", "env_var"),
    [("openai:gpt-4.1", "OPENAI_API_KEY"), ("anthropic:claude-haiku-4-5", "ANTHROPIC_API_KEY")],
)
def test_missing_key_names_the_variable(fake_llm, spec, env_var):
    with pytest.raises(MissingAPIKey) as raised:
        resolve_provider(spec, base_url=fake_llm.url)
    assert f"set the {env_var} environment variable" in str(raised.value)
    assert raised.value.env_var == env_var and not fake_llm.requests


def test_key_is_read_from_the_environment(fake_llm, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    fake_llm.push(text("ok"))
    resolve_provider("openai:gpt-4.1", base_url=fake_llm.url + "/v1").complete(ASK)
    assert fake_llm.requests[0].headers["authorization"] == "Bearer from-env"


@pytest.mark.parametrize("spec", BOTH)
def test_unknown_model_is_a_user_error_and_not_retried(fake_llm, a_provider, spec):
    fake_llm.push(error(404, "The model `nope` does not exist"))
    with pytest.raises(UnknownModel) as raised:
        a_provider(spec).complete(ASK)
    assert spec.partition(":")[2] in str(raised.value) and "does not exist" in str(raised.value)
    assert len(fake_llm.requests) == 1


@pytest.mark.parametrize("spec", BOTH)
def test_bad_request_is_refused_and_not_retried(fake_llm, a_provider, spec):
    fake_llm.push(error(400, "prompt is too long"))
    with pytest.raises(RequestRefused, match=r"request refused \(400\): prompt is too long"):
        a_provider(spec).complete(ASK)
    assert len(fake_llm.requests) == 1


@pytest.mark.parametrize("spec", BOTH)
def test_model_refusal_is_reported(fake_llm, a_provider, spec):
    fake_llm.push(Reply(refusal="I can't help with that."))
    with pytest.raises(RequestRefused) as raised:
        a_provider(spec).complete(ASK)
    assert raised.value.status_code is None and len(fake_llm.requests) == 1


def test_rejected_key_points_at_the_variable(fake_llm, a_provider):
    fake_llm.push(error(401, "invalid api key"))
    with pytest.raises(RequestRefused, match="check OPENAI_API_KEY"):
        a_provider("openai:gpt-4.1").complete(ASK)


@pytest.mark.parametrize("spec", BOTH)
def test_concurrency_limit_is_respected(fake_llm, a_provider, spec):
    fake_llm.default = text("slow", delay_s=0.3)
    provider = a_provider(spec, max_concurrency=2)
    threads = [threading.Thread(target=provider.complete, args=(ASK,)) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(fake_llm.requests) == 6
    assert fake_llm.max_in_flight == 2


def test_openai_compatible_needs_no_key_and_sends_plain_parameters(fake_llm, a_provider):
    fake_llm.push(text("local", prompt_tokens=9, completion_tokens=4))
    completion = a_provider("openai-compatible:o1-style-local").complete(
        ASK, temperature=0.2, max_tokens=77
    )
    body = fake_llm.requests[0].body
    assert (
        body["model"] == "o1-style-local"
        and body["max_tokens"] == 77
        and body["temperature"] == 0.2
    )
    assert completion.cost_usd == 0.0 and completion.cost_known is False


def test_openai_compatible_without_address_says_how_to_give_one():
    with pytest.raises(ProviderUserError, match="--base-url"):
        resolve_provider("openai-compatible:llama3:8b")


def test_price_file_from_the_environment_overrides(fake_llm, a_provider, tmp_path, monkeypatch):
    prices = tmp_path / "prices.json"
    prices.write_text('{"gpt-4.1": {"input": 1000, "output": 0}}')
    monkeypatch.setenv("KERNELTRIALS_PRICES", str(prices))
    fake_llm.push(text("ok", prompt_tokens=1000, completion_tokens=50))
    assert a_provider("openai:gpt-4.1").complete(ASK).cost_usd == pytest.approx(1.0)
