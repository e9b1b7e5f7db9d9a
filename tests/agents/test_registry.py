"""The provider registry, lazy imports, and the retry/concurrency machinery of the base class."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from kerneltrials.agents import (
    Completion,
    Message,
    Provider,
    ProviderError,
    ProviderUnavailable,
    ProviderUserError,
    UnknownProvider,
    provider_names,
    register_provider,
    resolve_provider,
)


def _run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=60
    )


def test_unknown_provider_lists_the_valid_names():
    with pytest.raises(UnknownProvider) as raised:
        resolve_provider("opneai:gpt-4.1")
    message = str(raised.value)
    for name in ("openai", "anthropic", "openai-compatible", "replay"):
        assert name in message
    assert "opneai" in message


@pytest.mark.parametrize("spec", ["gpt-4.1", "openai:", ":gpt-4.1"])
def test_spec_without_provider_and_model_is_explained(spec):
    with pytest.raises(ProviderUserError, match="PROVIDER:MODEL"):
        resolve_provider(spec)


@pytest.mark.timeout(60)
def test_importing_the_package_and_replay_imports_no_sdk(tmp_path):
    replay = tmp_path / "run.jsonl"
    replay.write_text("")
    result = _run_python(f"""
        import sys
        import kerneltrials.agents as agents
        agents.resolve_provider("replay:{replay}")
        print(sorted(m for m in ("openai", "anthropic", "torch") if m in sys.modules))
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


@pytest.mark.timeout(60)
def test_missing_sdk_names_the_install_command():
    result = _run_python("""
        import sys
        sys.modules["anthropic"] = None  # as if the SDK were not installed
        from kerneltrials.agents import MissingSDK, resolve_provider
        try:
            resolve_provider("anthropic:claude-haiku-4-5", api_key="k")
        except MissingSDK as error:
            print(error)
    """)
    assert result.returncode == 0, result.stderr
    assert "pip install 'kerneltrials[llm]'" in result.stdout
    assert "anthropic" in result.stdout


class _Scripted(Provider):
    """A provider that fails ``failures`` times with ``error`` before answering."""

    name = "scripted-test"

    def __init__(self, model: str, failures: int = 0, error: Exception | None = None, **options):
        super().__init__(model, **options)
        self.failures = failures
        self.error = error or ProviderError("flaky")
        self.calls = 0

    def complete(self, messages, *, temperature=None, max_tokens=8192, key=None, **options):
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error
        return Completion(messages[-1].content, 1, 1, 0.0, 0.0, self.model, "stop")


def test_registered_provider_resolves_and_gets_retries():
    register_provider("scripted-test")(_Scripted)
    assert "scripted-test" in provider_names()
    provider = resolve_provider("scripted-test:m", failures=2, backoff_base_s=0.001)
    completion = provider.complete([Message("user", "hi")])
    assert completion.text == "hi" and completion.attempts == 3 and provider.calls == 3


def test_should_retry_hook_can_refuse_retries():
    class NoRetry(_Scripted):
        def should_retry(self, error: BaseException) -> bool:
            return False

    provider = NoRetry("m", failures=5)
    with pytest.raises(ProviderError, match="flaky"):
        provider.complete([Message("user", "hi")])
    assert provider.calls == 1


def test_non_retryable_errors_and_user_errors_are_raised_at_once():
    fatal = _Scripted("m", failures=5, error=ProviderError("broken", retryable=False))
    with pytest.raises(ProviderError, match="broken"):
        fatal.complete([Message("user", "hi")])
    user = _Scripted("m", failures=5, error=ProviderUserError("fix me"))
    with pytest.raises(ProviderUserError, match="fix me"):
        user.complete([Message("user", "hi")])
    assert (fatal.calls, user.calls) == (1, 1)


def test_exhausted_attempts_keep_the_last_error():
    provider = _Scripted("m", failures=10, max_attempts=4, backoff_base_s=0.001)
    with pytest.raises(ProviderUnavailable) as raised:
        provider.complete([Message("user", "hi")])
    assert raised.value.attempts == 4 and provider.calls == 4
    assert isinstance(raised.value.last_error, ProviderError)


@pytest.mark.timeout(10)
def test_subclass_calling_super_complete_is_managed_once():
    class Shouting(_Scripted):
        def complete(self, messages, **kwargs):
            return super().complete([Message("user", messages[-1].content.upper())], **kwargs)

    provider = Shouting("m", failures=1, max_concurrency=1, backoff_base_s=0.001)
    completion = provider.complete([Message("user", "hi")])  # would deadlock if nested
    assert completion.text == "HI" and completion.attempts == 2


def test_backoff_grows_exponentially_and_honours_retry_after():
    provider = _Scripted("m", backoff_base_s=1.0, backoff_max_s=5.0)
    plain = ProviderError("x")
    assert 0.5 <= provider.backoff_delay_s(1, plain) <= 1.0
    assert 1.0 <= provider.backoff_delay_s(2, plain) <= 2.0
    assert 2.0 <= provider.backoff_delay_s(3, plain) <= 4.0
    assert 2.5 <= provider.backoff_delay_s(6, plain) <= 5.0  # capped
    throttled = ProviderError("x", retry_after_s=7.0)
    assert 7.0 <= provider.backoff_delay_s(1, throttled) <= 7.7


@pytest.mark.timeout(60)
def test_provider_from_an_entry_point_resolves(tmp_path):
    info = tmp_path / "kt_echo_provider_h6-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: kt-echo-provider-h6\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[kerneltrials.providers]\necho = kt_echo_h6:Echo\n")
    (tmp_path / "kt_echo_h6.py").write_text(textwrap.dedent("""
        from kerneltrials.agents import Completion, Provider

        class Echo(Provider):  # registered by the entry point, not by a decorator
            name = "echo"

            def complete(self, messages, **options):
                return Completion(messages[-1].content, 1, 1, 0.0, 0.0, self.model, "stop")
    """))
    result = _run_python(f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        from kerneltrials.agents import Message, provider_names, resolve_provider
        print("echo" in provider_names())
        print(resolve_provider("echo:m1").complete([Message("user", "ping")]).text)
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "ping"]


def test_unknown_provider_is_a_user_error_the_cli_prints():
    with pytest.raises(ProviderUserError, match="unknown provider 'nope'"):
        resolve_provider("nope:model")
