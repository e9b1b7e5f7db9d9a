"""Any server with an OpenAI-style chat API: vLLM, SGLang, Ollama, llama.cpp, ...

``openai-compatible:MODEL`` with ``base_url`` (e.g. ``http://localhost:8000/v1``; Ollama:
``http://localhost:11434/v1``), or ``KERNELTRIALS_BASE_URL``. The key is optional: from
``api_key``, else ``KERNELTRIALS_API_KEY``. Parameters are sent in their plain form
(``max_tokens``, ``temperature``) whatever the model's name, since such servers follow the
classic API; an unpriced model costs 0.
"""

from __future__ import annotations

import os
from typing import Any

from kerneltrials.agents._errors import ProviderUserError
from kerneltrials.agents._registry import register_provider
from kerneltrials.agents.providers.openai import OpenAIProvider

BASE_URL_ENV_VAR = "KERNELTRIALS_BASE_URL"


@register_provider("openai-compatible")
class OpenAICompatibleProvider(OpenAIProvider):
    """``openai-compatible:MODEL`` against a self-hosted server at ``base_url``."""

    name = "openai-compatible"
    key_env = "KERNELTRIALS_API_KEY"
    key_required = False

    def __init__(self, model: str, *, base_url: str | None = None, **options: Any) -> None:
        base_url = base_url or os.environ.get(BASE_URL_ENV_VAR)
        if not base_url:
            raise ProviderUserError(
                f"openai-compatible:{model}: no server address: pass --base-url "
                f"(e.g. http://localhost:8000/v1) or set {BASE_URL_ENV_VAR}"
            )
        super().__init__(model, base_url=base_url, **options)

    def request_params(
        self, temperature: float | None, max_tokens: int, options: dict[str, Any]
    ) -> dict[str, Any]:
        params: dict[str, Any] = {"max_tokens": max_tokens, **options}
        if temperature is not None:
            params["temperature"] = temperature
        return params
