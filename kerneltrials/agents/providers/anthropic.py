"""Anthropic's messages API, through the official ``anthropic`` SDK.

System turns go to the separate ``system`` parameter. ``temperature`` is not sent: the API
version that SDK 2.x speaks (2026-10-21) rejects sampling parameters on every model, so
``refine``/``best-of-n`` get their diversity from the model itself here. Extra options
(``thinking``, ``output_config``, ...) pass through to ``messages.create``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import anthropic

from kerneltrials.agents._errors import MissingAPIKey, ProviderError, RequestRefused
from kerneltrials.agents._provider import CallKey, Completion, Message, Provider
from kerneltrials.agents._registry import register_provider
from kerneltrials.agents.providers._sdk import preflight, translate_error

KEY_ENV_VAR = "ANTHROPIC_API_KEY"


@register_provider("anthropic")
class AnthropicProvider(Provider):
    """``anthropic:MODEL``. Key from ``ANTHROPIC_API_KEY``; ``base_url`` for proxies and tests."""

    name = "anthropic"

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__(model, **options)
        key = api_key or os.environ.get(KEY_ENV_VAR)
        if not key:
            raise MissingAPIKey(self.name, KEY_ENV_VAR)
        self.base_url = base_url
        # An explicit key keeps the SDK from looking for profiles or tokens on disk.
        self._client = anthropic.Anthropic(
            api_key=key, base_url=base_url, max_retries=0, timeout=self.timeout_s
        )

    def preflight(self) -> None:
        preflight(self._client, anthropic, self.name, KEY_ENV_VAR)

    def complete(
        self,
        messages: Sequence[Message],
        *,
        temperature: float | None = None,
        max_tokens: int = 8192,
        key: CallKey | None = None,
        **options: Any,
    ) -> Completion:
        system = "\n\n".join(m.content for m in messages if m.role == "system")
        turns = [{"role": m.role, "content": m.content} for m in messages if m.role != "system"]
        if system:
            options = {"system": system, **options}
        try:
            response = self._client.messages.create(
                model=self.model,
                max_tokens=max_tokens,
                messages=turns,  # type: ignore[arg-type]
                **options,
            )
        except Exception as error:
            raise translate_error(error, anthropic, self.name, self.model, KEY_ENV_VAR) from error
        return self._to_completion(response)

    def _to_completion(self, response: Any) -> Completion:
        if getattr(response, "usage", None) is None or getattr(response, "content", None) is None:
            raise ProviderError(f"{self.spec}: malformed reply: no content or usage")
        if response.stop_reason == "refusal":
            details = getattr(response, "stop_details", None)
            raise RequestRefused(
                self.name, str(getattr(details, "explanation", None) or "the model refused")
            )
        usage = response.usage
        # Cached prompt tokens are reported apart from input_tokens; all were prompt.
        prompt_tokens = int(usage.input_tokens) + sum(
            int(getattr(usage, field, None) or 0)
            for field in ("cache_creation_input_tokens", "cache_read_input_tokens")
        )
        completion_tokens = int(usage.output_tokens)
        model = response.model or self.model
        cost, known = self.cost_usd(model, prompt_tokens, completion_tokens)
        text = "".join(
            block.text for block in response.content if getattr(block, "type", "") == "text"
        )
        return Completion(
            text=text,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            cost_usd=cost,
            latency_s=0.0,
            model=model,
            raw_finish_reason=response.stop_reason,
            cost_known=known,
        )
