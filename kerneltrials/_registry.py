"""Named, pluggable parts (providers, strategies, sandboxes, executors): one registry per role.

A :class:`Registry` maps a name to an object (usually a class). It is filled three ways:

- **decorators**: ``@REGISTRY.register("name")`` on the class, run when its module is imported;
- **built-ins**, listed by module path and imported only when first asked for, so that
  importing the package imports no optional SDK, and a missing SDK raises an error that
  names the ``pip install 'kerneltrials[extra]'`` command instead of a bare ImportError;
- **third-party entry points** in the role's group (e.g. ``kerneltrials.sandboxes``),
  looked up only when a name is neither registered nor built in. An entry point may name
  the object itself (``pkg.module:MySandbox``) or a module whose import registers it.

Listing the built-ins by path (not importing them) also keeps the import graph acyclic: a
module that defines the registry never imports the modules that fill it.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Builtin:
    """A built-in entry: the module that registers it, and the optional SDK it imports."""

    module: str
    requires: str | None = None  # top-level module of the optional SDK, e.g. "ray"
    extra: str | None = None  # the package extra that installs it, e.g. "ray"


class RegistryError(ValueError):
    """A name that cannot be resolved; ``str()`` is one line that says what to do.

    A ValueError so that the CLI, which reports bad option values, reports these too.
    """


class UnknownName(RegistryError):
    """No part of this role has that name; the message lists the valid names."""

    def __init__(self, role: str, name: str, valid: list[str]) -> None:
        super().__init__(f"unknown {role} {name!r}: choose one of {', '.join(valid)}")
        self.role = role
        self.name = name
        self.valid = valid


class MissingDependency(RegistryError):
    """A built-in part needs an optional package that is not installed."""

    def __init__(self, role: str, name: str, builtin: Builtin) -> None:
        extra = builtin.extra or "all"
        super().__init__(f"the {name} {role} needs the {builtin.requires!r} package: "
                         f"pip install 'kerneltrials[{extra}]'")
        self.role = role
        self.name = name
        self.module = builtin.requires


UnknownFactory = Callable[[str, list[str]], Exception]
MissingFactory = Callable[[str, Builtin], Exception]


class Registry(Generic[T]):
    """The parts of one role by name: registered, built in, or from an entry point.

    Args:
        role: what a part is, for messages ("sandbox", "executor").
        builtins: name -> :class:`Builtin`, imported on first use.
        entry_point_group: the ``importlib.metadata`` group third parties register in.
        unknown: builds the error for an unknown name from (name, valid names); the
            default is :class:`UnknownName`.
        missing: builds the error for a built-in whose SDK is missing from (name, builtin);
            the default is :class:`MissingDependency`.
    """

    def __init__(self, role: str, builtins: Mapping[str, Builtin] | None = None, *,
                 entry_point_group: str | None = None, unknown: UnknownFactory | None = None,
                 missing: MissingFactory | None = None) -> None:
        self.role = role
        self.builtins = dict(builtins or {})
        self.entry_point_group = entry_point_group
        self._unknown = unknown or (lambda name, valid: UnknownName(role, name, valid))
        self._missing = missing or (lambda name, builtin: MissingDependency(role, name, builtin))
        self._items: dict[str, T] = {}

    def add(self, name: str, item: T) -> T:
        """Register ``item`` as ``name`` (a later registration of the same name wins)."""
        self._items[name] = item
        return item

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator: register the decorated object as ``name``."""
        return lambda item: self.add(name, item)

    def names(self) -> list[str]:
        """Every name that resolves or may resolve: registered, built in, entry points."""
        return sorted(set(self._items) | set(self.builtins) | set(self._entry_point_names()))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self.names()

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def get(self, name: str) -> T:
        """The part called ``name``, importing its module on first use.

        Raises:
            the ``unknown`` error: no such name (its message lists the valid names);
            the ``missing`` error: a built-in whose optional SDK is not installed;
            RegistryError: a third-party entry point that fails to load.
        """
        if name not in self._items and name in self.builtins:
            self._import_builtin(name, self.builtins[name])
        if name not in self._items:
            self._load_entry_point(name)
        if name not in self._items:
            raise self._unknown(name, self.names())
        return self._items[name]

    def _import_builtin(self, name: str, builtin: Builtin) -> None:
        if builtin.requires is not None and not _importable(builtin.requires):
            raise self._missing(name, builtin)
        try:
            importlib.import_module(builtin.module)
        except ImportError as error:
            if builtin.requires is not None and _names_module(error, builtin.requires):
                raise self._missing(name, builtin) from error
            raise

    def _entry_point_names(self) -> list[str]:
        if self.entry_point_group is None:
            return []
        return [point.name for point in importlib.metadata.entry_points(
            group=self.entry_point_group)]

    def _load_entry_point(self, name: str) -> None:
        if self.entry_point_group is None:
            return
        points = importlib.metadata.entry_points(group=self.entry_point_group, name=name)
        for point in points:  # the first distribution that declares it wins
            try:
                loaded = point.load()
            except Exception as error:  # third-party code: report it as this name's problem
                raise RegistryError(f"the {self.role} {name!r} (entry point {point.value!r} "
                                    f"in group {self.entry_point_group!r}) failed to load: "
                                    f"{error}") from error
            # A module whose import ran the decorator is registered already; an entry point
            # naming the object itself is registered here.
            if name not in self._items and point.attr is not None:
                self.add(name, loaded)
            return


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a broken parent, or a module set to None
        return False


def _names_module(error: BaseException, module: str) -> bool:
    """Whether an ImportError (or one that caused it) is about ``module``."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, ImportError) and (
            (seen.name or "").partition(".")[0] == module or f"'{module}'" in str(seen)
        ):
            return True
        seen = seen.__cause__
    return False
