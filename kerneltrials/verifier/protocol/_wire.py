"""Typed messages on the worker channel: dataclasses to JSON objects and back, checked.

A message is a dataclass whose fields are JSON-able types (``int``, ``float``, ``str``,
``bool``, ``list[X]``, ``dict[str, X]``, ``tuple[X, ...]``, ``X | None``, another
message, or ``Any`` for values the receiver judges itself). :func:`from_wire` checks
every field against its annotation: a reply from the candidate's worker is
attacker-controlled, and a field of the wrong type is a malformed frame, never a value
the parent reads (docs/design/sandbox.md).
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from typing import Any, TypeVar, get_args, get_origin

M = TypeVar("M")

#: Bounds on what a reply may hold, whatever its annotation says.
MAX_ITEMS = 100_000
MAX_DEPTH = 32


class MalformedMessage(ValueError):
    """A frame whose fields do not have the types of the message it claims to be."""


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def to_wire(message: Any) -> dict[str, Any]:
    """The JSON object of a message dataclass (tuples become lists)."""
    return {field.name: _plain(getattr(message, field.name))
            for field in dataclasses.fields(message)}


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return to_wire(value)
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def from_wire(cls: type[M], data: Any) -> M:
    """An instance of message ``cls`` from a JSON object; raises :class:`MalformedMessage`
    on a missing field, an unknown one, or a value of the wrong type."""
    return typing.cast(M, _message(cls, data, cls.__name__, 0))


def _message(cls: type, data: Any, where: str, depth: int) -> Any:
    if not isinstance(data, dict):
        raise MalformedMessage(f"{where}: not an object")
    hints = _hints(cls)
    fields = {field.name: field for field in dataclasses.fields(cls)}
    unknown = set(data) - set(fields)
    if unknown:
        raise MalformedMessage(f"{where}: unexpected fields {sorted(unknown)[:5]}")
    values = {}
    for name, field in fields.items():
        if name not in data:
            if field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
                raise MalformedMessage(f"{where}: missing field {name!r}")
            continue
        values[name] = _value(hints[name], data[name], f"{where}.{name}", depth + 1)
    return cls(**values)


def _value(kind: Any, value: Any, where: str, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise MalformedMessage(f"{where}: nested too deeply")
    if kind is Any or kind is object:
        return value
    origin = get_origin(kind)
    if origin in (types.UnionType, typing.Union):
        return _union(get_args(kind), value, where, depth)
    if origin in (list, tuple, dict):
        return _container(kind, origin, value, where, depth)
    if dataclasses.is_dataclass(kind):
        return _message(typing.cast(type, kind), value, where, depth)
    return _scalar(kind, value, where)


def _union(options: tuple[Any, ...], value: Any, where: str, depth: int) -> Any:
    if value is None and type(None) in options:
        return None
    for option in options:
        if option is type(None):
            continue
        try:
            return _value(option, value, where, depth)
        except MalformedMessage:
            continue
    raise MalformedMessage(f"{where}: {type(value).__name__} is none of {options}")


def _container(kind: Any, origin: Any, value: Any, where: str, depth: int) -> Any:
    args = get_args(kind)
    if origin is dict:
        if not isinstance(value, dict) or len(value) > MAX_ITEMS:
            raise MalformedMessage(f"{where}: not an object")
        return {str(key): _value(args[1], item, f"{where}[{key!r}]", depth)
                for key, item in value.items()}
    if not isinstance(value, list | tuple) or len(value) > MAX_ITEMS:
        raise MalformedMessage(f"{where}: not a list")
    if origin is list:
        return [_value(args[0], item, f"{where}[{i}]", depth) for i, item in enumerate(value)]
    if len(args) == 2 and args[1] is Ellipsis:
        return tuple(_value(args[0], item, f"{where}[{i}]", depth) for i, item in enumerate(value))
    if len(args) != len(value):
        raise MalformedMessage(f"{where}: expected {len(args)} items")
    return tuple(_value(arg, item, f"{where}[{i}]", depth)
                 for i, (arg, item) in enumerate(zip(args, value, strict=True)))


def _scalar(kind: Any, value: Any, where: str) -> Any:
    if kind is bool:
        ok = isinstance(value, bool)
    elif kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif kind is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        value = float(value) if ok else value
    elif kind is str:
        ok = isinstance(value, str)
    else:
        raise TypeError(f"{where}: unsupported field type {kind!r}")
    if not ok:
        raise MalformedMessage(f"{where}: expected {kind.__name__}, got {type(value).__name__}")
    return value
