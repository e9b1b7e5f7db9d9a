"""Errors raised by providers, in two families that callers must keep apart.

- Infrastructure failures (``ProviderError`` and its subclass ``ProviderUnavailable``):
  the API was down, slow, rate-limited or answered garbage. They are retried, and never
  scored as a wrong kernel (such an attempt becomes an ``error`` verdict:
  docs/design/interfaces.md, "Statuses").
- User errors (``ProviderUserError`` subclasses): a missing key or SDK, an unknown model or
  provider, a refused request. Retrying cannot help; the run stops and the CLI prints the
  one-line message, which says what to fix.

Every class derives from ``AgentError``, so the CLI can catch one type and print ``str(e)``.
"""

from __future__ import annotations

from collections.abc import Sequence


class AgentError(Exception):
    """Base of every error this package raises on purpose; ``str()`` is one line."""


class ProviderError(AgentError):
    """One failed call to the provider that says nothing about the request itself.

    Attributes:
        status_code: the HTTP status, or None (timeout, connection error, malformed reply).
        retry_after_s: the wait the server asked for (``retry-after``), or None.
        retryable: whether another try may succeed.
    """

    def __init__(
        self,
        message: str,
        *,
        status_code: int | None = None,
        retry_after_s: float | None = None,
        retryable: bool = True,
    ) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.retry_after_s = retry_after_s
        self.retryable = retryable


class ProviderUnavailable(ProviderError):
    """Every try failed: the provider is down or overloaded (an infrastructure failure)."""

    def __init__(self, message: str, *, attempts: int, last_error: BaseException | None) -> None:
        super().__init__(message, retryable=False)
        self.attempts = attempts
        self.last_error = last_error


class ProviderUserError(AgentError):
    """A failure the user must fix (key, model, SDK, request); never retried."""


class EndpointUnreachable(ProviderUserError):
    """Before a run, nothing answered at the provider's address: the address (or the
    server) is what to fix, so the run does not start."""

    def __init__(self, provider: str, address: str, detail: str) -> None:
        super().__init__(f"{provider}: cannot reach {address}: {detail} (is the server "
                         "running? check --base-url)")
        self.provider = provider
        self.address = address


class MissingAPIKey(ProviderUserError):
    """The provider needs an API key and the environment variable holding it is unset."""

    def __init__(self, provider: str, env_var: str) -> None:
        super().__init__(f"{provider}: no API key: set the {env_var} environment variable")
        self.provider = provider
        self.env_var = env_var


class MissingSDK(ProviderUserError):
    """The optional SDK a provider needs is not installed."""

    def __init__(self, provider: str, module: str) -> None:
        super().__init__(
            f"the {provider} provider needs the {module!r} package: pip install 'kerneltrials[llm]'"
        )
        self.provider = provider
        self.module = module


class UnknownModel(ProviderUserError):
    """The server does not know the model (HTTP 404, or a 400 saying so)."""

    def __init__(self, provider: str, model: str, detail: str = "") -> None:
        hint = f" (server said: {detail})" if detail else ""
        super().__init__(
            f"{provider}: unknown model {model!r}{hint}: check the name after "
            f"'{provider}:' (and --base-url for a self-hosted server)"
        )
        self.provider = provider
        self.model = model


class UnknownProvider(ProviderUserError):
    """A model spec named a provider that is not registered."""

    def __init__(self, name: str, valid: Sequence[str]) -> None:
        super().__init__(
            f"unknown provider {name!r}: choose one of {', '.join(valid)} "
            "(as PROVIDER:MODEL, e.g. openai:gpt-4.1)"
        )
        self.name = name
        self.valid = list(valid)


class RequestRefused(ProviderUserError):
    """The provider or the model refused the request (4xx, content filter, refusal)."""

    def __init__(self, provider: str, detail: str, *, status_code: int | None = None) -> None:
        code = f" ({status_code})" if status_code is not None else ""
        super().__init__(f"{provider}: request refused{code}: {_one_line(detail)}")
        self.provider = provider
        self.status_code = status_code
        self.detail = detail


class ReplayMiss(ProviderUserError):
    """A replay file holds no reply for the requested call."""


def _one_line(text: str, limit: int = 300) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."
