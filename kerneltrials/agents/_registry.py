"""Providers and strategies by name: ``register_*`` fills a registry, ``resolve_*`` reads it.

Both are :class:`kerneltrials._registry.Registry` instances. Built-in providers are listed
by module and imported only when resolved, so that neither ``import kerneltrials`` nor
``kerneltrials --help`` imports an SDK, and a missing SDK gives an error naming the install
command (:class:`MissingSDK`) instead of an ImportError. Other packages add providers and
strategies through the entry point groups ``kerneltrials.providers`` and
``kerneltrials.strategies``.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from kerneltrials._registry import Builtin, Registry
from kerneltrials.agents._errors import MissingSDK, ProviderUserError, UnknownProvider

if TYPE_CHECKING:
    from kerneltrials.agents._provider import Provider
    from kerneltrials.agents._strategy import Strategy

P = TypeVar("P", bound="type[Provider]")
S = TypeVar("S", bound="type[Strategy]")

_LLM = "llm"

#: Providers: ``PROVIDER`` in ``PROVIDER:MODEL``.
PROVIDERS: Registry[type[Provider]] = Registry(
    "provider",
    {
        "openai": Builtin("kerneltrials.agents.providers.openai", "openai", _LLM),
        "anthropic": Builtin("kerneltrials.agents.providers.anthropic", "anthropic", _LLM),
        "openai-compatible": Builtin("kerneltrials.agents.providers.openai_compatible",
                                     "openai", _LLM),
        "replay": Builtin("kerneltrials.agents.providers.replay"),
        "reference": Builtin("kerneltrials.agents.providers.reference"),
    },
    entry_point_group="kerneltrials.providers",
    unknown=UnknownProvider,
    missing=lambda name, builtin: MissingSDK(name, builtin.requires or name),
)


def register_provider(name: str) -> Callable[[P], P]:
    """Class decorator: make ``name:MODEL`` resolve to the decorated provider class."""

    def decorate(cls: P) -> P:
        PROVIDERS.add(name, cls)
        return cls

    return decorate


def provider_names() -> list[str]:
    return PROVIDERS.names()


def split_spec(spec: str) -> tuple[str, str]:
    """``"openai:gpt-4.1"`` -> ("openai", "gpt-4.1"); the model may itself hold colons."""
    name, sep, model = spec.partition(":")
    if not sep or not name or not model:
        raise ProviderUserError(
            f"model {spec!r} is not PROVIDER:MODEL (e.g. openai:gpt-4.1, "
            f"replay:run.jsonl); providers: {', '.join(provider_names())}"
        )
    return name, model


def resolve_provider_class(name: str) -> type[Provider]:
    """The provider class registered as ``name``, importing a built-in one on first use.

    Raises:
        UnknownProvider: no such provider (the message lists the valid names).
        MissingSDK: the provider's optional SDK is not installed.
    """
    return PROVIDERS.get(name)


def resolve_provider(spec: str, **options: Any) -> Provider:
    """A provider instance for ``spec`` = ``PROVIDER:MODEL``.

    Examples: ``openai:gpt-4.1``, ``anthropic:claude-sonnet-4-5``,
    ``openai-compatible:Qwen/Qwen3-32B`` with ``base_url=...``, ``replay:run.jsonl``.

    Args:
        spec: the provider name and model (for replay: the JSONL file).
        options: constructor options: ``base_url``, ``api_key``, ``max_concurrency``,
            ``max_attempts``, ``backoff_base_s``, ``timeout_s``, ``prices``, ...

    Raises:
        ProviderUserError: a malformed spec, an unknown provider (UnknownProvider), a
            missing SDK (MissingSDK) or key (MissingAPIKey).
    """
    name, model = split_spec(spec)
    return resolve_provider_class(name)(model, **options)


# --- strategies --------------------------------------------------------------------------

STRATEGIES: Registry[type[Strategy]] = Registry(
    "agent",
    {
        "one-shot": Builtin("kerneltrials.agents.strategies.one_shot"),
        "best-of-n": Builtin("kerneltrials.agents.strategies.best_of_n"),
        "refine": Builtin("kerneltrials.agents.strategies.refine"),
        "coder-judge": Builtin("kerneltrials.agents.strategies.coder_judge"),
    },
    entry_point_group="kerneltrials.strategies",
    unknown=lambda name, valid: ProviderUserError(
        f"unknown agent {name!r}: choose one of {', '.join(valid)}, "
        "or give path/to/file.py:ClassName"
    ),
)


def register_strategy(name: str) -> Callable[[S], S]:
    """Class decorator: make ``--agent name`` resolve to the decorated strategy."""

    def decorate(cls: S) -> S:
        STRATEGIES.add(name, cls)
        return cls

    return decorate


def strategy_names() -> list[str]:
    return STRATEGIES.names()


def resolve_strategy(spec: str, **options: Any) -> Strategy:
    """A strategy from a name (``coder-judge``) or a user file (``path/to/file.py:ClassName``).

    Raises:
        ProviderUserError: unknown name (the message lists the valid ones), or a file or
            class that cannot be loaded.
    """
    if ".py:" in spec:
        return _load_strategy_file(spec)(**options)
    return STRATEGIES.get(spec)(**options)


def _load_strategy_file(spec: str) -> type[Strategy]:
    from kerneltrials.agents._strategy import Strategy

    path, _, class_name = spec.rpartition(":")
    module_spec = importlib.util.spec_from_file_location(
        f"kerneltrials_user_agent_{abs(hash(path))}", path
    )
    if module_spec is None or module_spec.loader is None:
        raise ProviderUserError(f"cannot load agent file {path!r}")
    module = importlib.util.module_from_spec(module_spec)
    try:
        module_spec.loader.exec_module(module)
    except OSError as error:
        raise ProviderUserError(
            f"cannot load agent file {path!r}: {error.strerror or error}"
        ) from error
    cls = getattr(module, class_name, None)
    if not (isinstance(cls, type) and issubclass(cls, Strategy)):
        raise ProviderUserError(f"{path!r} defines no Strategy subclass named {class_name!r}")
    return cls
