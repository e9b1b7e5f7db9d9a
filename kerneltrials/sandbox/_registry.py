"""Sandboxes by name: ``register_sandbox`` fills it, ``resolve_sandbox`` reads it."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

_SANDBOXES: dict[str, type[Any]] = {}

#: Built-in backends, imported only when asked for (docker needs an optional SDK).
_BUILTIN_MODULES = {
    "process": "kerneltrials.sandbox._process",
    "docker": "kerneltrials.sandbox._docker",
}


def register_sandbox(name: str) -> Callable[[type[Any]], type[Any]]:
    def decorate(cls: type[Any]) -> type[Any]:
        _SANDBOXES[name] = cls
        return cls

    return decorate


def sandbox_names() -> list[str]:
    return sorted(set(_SANDBOXES) | set(_BUILTIN_MODULES))


def resolve_sandbox(name: str, **options: Any) -> Any:
    """An instance of the sandbox called ``name``; the error lists the valid names."""
    if name not in _SANDBOXES and name in _BUILTIN_MODULES:
        importlib.import_module(_BUILTIN_MODULES[name])
    if name not in _SANDBOXES:
        raise ValueError(f"unknown sandbox {name!r}: choose one of {', '.join(sandbox_names())}")
    return _SANDBOXES[name](**options)
