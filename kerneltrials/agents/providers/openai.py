"""OpenAI chat completions, through the official ``openai`` SDK.

Reasoning models (o-series, gpt-5 family) take ``max_completion_tokens`` instead of
``max_tokens``, reject a non-default ``temperature`` (so it is not sent) and accept
``reasoning_effort`` ("low" | "medium" | "high"), passed through as an option.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Any

import openai

from kerneltrials.agents._errors import MissingAPIKey, ProviderError, RequestRefused
from kerneltrials.agents._provider import CallKey, Completion, Message, Provider
from kerneltrials.agents._registry import register_provider
from kerneltrials.agents.providers._sdk import preflight, translate_error

_REASONING_MODEL = re.compile(r"^(o\d|gpt-5)")


def is_reasoning_model(model: str) -> bool:
    """Whether ``model`` takes reasoning-model parameters (o1, o3, o4-mini, gpt-5, ...)."""
    return bool(_REASONING_MODEL.match(model))


@register_provider("openai")
class OpenAIProvider(Provider):
    """``openai:MODEL``. Key from ``OPENAI_API_KEY``; ``base_url`` for proxies and tests."""

    name = "openai"
    key_env: str | None = "OPENAI_API_KEY"
    key_required = True

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__(model, **options)
        key = api_key or (os.environ.get(self.key_env) if self.key_env else None)
        if not key:
            if self.key_required and self.key_env:
                raise MissingAPIKey(self.name, self.key_env)
            key = "unused"  # local servers often need no key; the SDK insists on one
        self.base_url = base_url
        self._client = openai.OpenAI(
            api_key=key, base_url=base_url, max_retries=0, timeout=self.timeout_s
        )

    def request_params(
        self, temperature: float | None, max_tokens: int, options: dict[str, Any]
    ) -> dict[str, Any]:
        """The model-dependent keyword arguments of ``chat.completions.create``."""
        if is_reasoning_model(self.model):
            return {"max_completion_tokens": max_tokens, **options}
        params: dict[str, Any] = {"max_tokens": max_tokens, **options}
        if temperature is not None:
            params["temperature"] = temperature
        return params

    def preflight(self) -> None:
        preflight(self._client, openai, self.name, self.key_env)

    def complete(
        self,
        messages: Sequence[Message],
        *,
        temperature: float | None = None,
        max_tokens: int = 8192,
        key: CallKey | None = None,
        **options: Any,
    ) -> Completion:
        try:
            response = self._client.chat.completions.create(
                model=self.model,
                messages=[{"role": m.role, "content": m.content} for m in messages],  # type: ignore[misc]
                **self.request_params(temperature, max_tokens, options),
            )
        except Exception as error:
            raise translate_error(error, openai, self.name, self.model, self.key_env) from error
        return self._to_completion(response)

    def _to_completion(self, response: Any) -> Completion:
        if not getattr(response, "choices", None):
            raise ProviderError(f"{self.spec}: malformed reply: no choices")
        choice = response.choices[0]
        if getattr(choice.message, "refusal", None) or choice.finish_reason == "content_filter":
            reason = choice.message.refusal or "content filter"
            raise RequestRefused(self.name, reason)
        usage = response.usage
        prompt_tokens = int(usage.prompt_tokens) if usage else 0
        completion_tokens = int(usage.completion_tokens) if usage else 0
        model = response.model or self.model
        cost, known = self.cost_usd(model, prompt_tokens, completion_tokens)
        return Completion(
            text=choice.message.content or "",
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            cost_usd=cost,
            latency_s=0.0,
            model=model,
            raw_finish_reason=choice.finish_reason,
            cost_known=known,
        )
