"""Agents: LLM providers, strategies, prompts, code extraction and feedback.

Resolve a model with ``resolve_provider("openai:gpt-4.1")``; it is imported lazily, so
importing this package imports no SDK.
"""

from __future__ import annotations

from kerneltrials.agents._errors import (
    AgentError,
    EndpointUnreachable,
    MissingAPIKey,
    MissingSDK,
    ProviderError,
    ProviderUnavailable,
    ProviderUserError,
    ReplayMiss,
    RequestRefused,
    UnknownModel,
    UnknownProvider,
)
from kerneltrials.agents._provider import CallKey, Completion, Message, Provider, prompt_hash
from kerneltrials.agents._registry import (
    provider_names,
    register_provider,
    register_strategy,
    resolve_provider,
    resolve_provider_class,
    resolve_strategy,
    strategy_names,
)
from kerneltrials.agents._strategy import (
    AgentCall,
    Attempt,
    Strategy,
    StrategyContext,
    Verify,
    best_attempt,
    no_code_verdict,
)
from kerneltrials.agents.extract import NO_CODE_REASON, extract_code
from kerneltrials.agents.feedback import format_feedback
from kerneltrials.agents.pricing import ModelPrice, PriceTable, load_price_table
from kerneltrials.agents.prompts import (
    backend_instructions,
    describe_hardware,
    initial_messages,
    system_prompt,
    task_prompt,
    worked_example,
)
from kerneltrials.agents.providers.replay import PromptDriftWarning, ReplayProvider, ReplayRecorder

__all__ = [
    "NO_CODE_REASON",
    "AgentCall",
    "AgentError",
    "Attempt",
    "CallKey",
    "Completion",
    "Message",
    "EndpointUnreachable",
    "MissingAPIKey",
    "MissingSDK",
    "ModelPrice",
    "PriceTable",
    "PromptDriftWarning",
    "Provider",
    "ProviderError",
    "ProviderUnavailable",
    "ProviderUserError",
    "ReplayMiss",
    "ReplayProvider",
    "ReplayRecorder",
    "RequestRefused",
    "Strategy",
    "StrategyContext",
    "UnknownModel",
    "UnknownProvider",
    "Verify",
    "best_attempt",
    "backend_instructions",
    "describe_hardware",
    "extract_code",
    "format_feedback",
    "initial_messages",
    "load_price_table",
    "no_code_verdict",
    "prompt_hash",
    "provider_names",
    "register_provider",
    "register_strategy",
    "resolve_provider",
    "resolve_provider_class",
    "resolve_strategy",
    "strategy_names",
    "system_prompt",
    "task_prompt",
    "worked_example",
]
