"""Shared by the SDK-backed providers: turning SDK failures into our error classes.

The openai and anthropic SDKs share their exception shapes (``APIStatusError`` with
``status_code``, ``response`` and ``body``; ``APITimeoutError``; ``APIConnectionError``),
so one translation serves both; each provider passes its own SDK module.
"""

from __future__ import annotations

import email.utils
import time
from types import ModuleType
from typing import Any

from kerneltrials.agents._errors import (
    AgentError,
    EndpointUnreachable,
    ProviderError,
    RequestRefused,
    UnknownModel,
)

#: How long the pre-flight request may take before the endpoint counts as unreachable.
PREFLIGHT_TIMEOUT_S = 15.0

#: Statuses worth another try: timeout, conflict, rate limit, server errors, overloaded.
RETRYABLE_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 529})


def translate_error(
    error: Exception, sdk: ModuleType, provider: str, model: str, key_env: str | None
) -> Exception:
    """The error of ``_errors`` that ``error`` (raised by ``sdk``) stands for.

    Returns ``error`` unchanged when it is none of the SDK's API errors (a bug to surface).
    """
    if isinstance(error, AgentError):
        return error
    if isinstance(error, sdk.APITimeoutError):
        return ProviderError(f"{provider}:{model}: request timed out")
    if isinstance(error, sdk.APIConnectionError):
        return ProviderError(f"{provider}:{model}: cannot connect: {error}")
    if isinstance(error, sdk.APIResponseValidationError) or isinstance(error, ValueError):
        # ValueError covers json.JSONDecodeError: a body that is not the JSON promised.
        return ProviderError(f"{provider}:{model}: malformed reply: {error}")
    if isinstance(error, sdk.APIStatusError):
        return _translate_status(error, provider, model, key_env)
    return error


def _translate_status(error: Any, provider: str, model: str, key_env: str | None) -> Exception:
    status = int(error.status_code)
    detail = server_message(error)
    if status in RETRYABLE_STATUSES or status >= 500:
        return ProviderError(
            f"{provider}:{model}: HTTP {status}: {detail}",
            status_code=status,
            retry_after_s=retry_after_s(error.response.headers),
        )
    if status == 404 or (status == 400 and _says_model_unknown(detail)):
        return UnknownModel(provider, model, detail)
    if status in (401, 403) and key_env:
        detail = f"{detail} (check {key_env})"
    return RequestRefused(provider, detail, status_code=status)


def server_message(error: Any) -> str:
    """The human message inside an API error body, else the SDK's own message."""
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])
        if isinstance(body.get("message"), str):
            return str(body["message"])
    return str(getattr(error, "message", error))


def _says_model_unknown(detail: str) -> bool:
    lowered = detail.lower()
    return "model" in lowered and any(
        phrase in lowered
        for phrase in ("not found", "does not exist", "unknown model", "not exist")
    )


def retry_after_s(headers: Any) -> float | None:
    """Seconds the server asked us to wait: ``retry-after-ms``, or ``retry-after`` as
    seconds or an HTTP date; None when absent or unreadable."""
    milliseconds = headers.get("retry-after-ms")
    if milliseconds is not None:
        try:
            return max(0.0, float(milliseconds) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def preflight(client: Any, sdk: ModuleType, provider: str, key_env: str | None) -> None:
    """List the models (``GET /models``, cheap on every API we speak): no answer at all
    raises ``EndpointUnreachable``, 401/403 ``RequestRefused``. Any other answer, an error
    status included (a server without that route), shows a server that is there."""
    address = str(client.base_url)
    try:
        client.with_options(timeout=PREFLIGHT_TIMEOUT_S, max_retries=0).models.list()
    except sdk.APIConnectionError as error:  # timeouts included
        raise EndpointUnreachable(provider, address, str(error) or type(error).__name__) from None
    except sdk.APIStatusError as error:
        status = int(error.status_code)
        if status in (401, 403):
            hint = f" (check {key_env})" if key_env else ""
            raise RequestRefused(provider, f"{address} rejected the API key: HTTP {status}: "
                                 f"{server_message(error)}{hint}", status_code=status) from None
