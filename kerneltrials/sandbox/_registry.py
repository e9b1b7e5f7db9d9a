"""Sandboxes by name: ``register_sandbox`` fills the registry, ``resolve_sandbox`` reads it.

Built-in backends are imported only when asked for (``docker`` needs an optional SDK);
other packages add backends through the entry point group ``kerneltrials.sandboxes``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from kerneltrials._registry import Builtin, Registry

if TYPE_CHECKING:
    from kerneltrials.sandbox._base import Sandbox

C = TypeVar("C", bound="type[Sandbox]")

SANDBOXES: Registry[type[Sandbox]] = Registry(
    "sandbox",
    {
        "process": Builtin("kerneltrials.sandbox._process"),
        "docker": Builtin("kerneltrials.sandbox._docker", "docker", "docker"),
    },
    entry_point_group="kerneltrials.sandboxes",
)


def register_sandbox(name: str) -> Callable[[C], C]:
    """Class decorator: make ``--sandbox name`` resolve to the decorated backend."""

    def decorate(cls: C) -> C:
        SANDBOXES.add(name, cls)
        return cls

    return decorate


def sandbox_names() -> list[str]:
    """The names ``resolve_sandbox`` accepts (built-in ones included before first use)."""
    return SANDBOXES.names()


def resolve_sandbox(name: str, **options: Any) -> Sandbox:
    """An instance of the sandbox called ``name``.

    Raises:
        kerneltrials._registry.UnknownName: no such backend (a ValueError; the message
            lists the valid names).
        kerneltrials._registry.MissingDependency: the backend's SDK is not installed.
    """
    return SANDBOXES.get(name)(**options)
