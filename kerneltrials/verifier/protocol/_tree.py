"""The one walker over nested outputs: a leaf, or a list/tuple of nested outputs.

Model outputs (tensors in lists and tuples), their described structures and compared
pairs are all such trees; both the worker and the parent walk them with these. Pure
Python: no torch, so the worker and the static-only path may import it.

The parent walks trees a worker described, and a forged reply may nest them as deep as
the JSON parser goes: ``leaves`` and ``paired_leaves`` keep their own stack instead of
recursing (two Python frames per level had raised ``RecursionError`` past ~500 levels).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def is_branch(value: Any) -> bool:
    return isinstance(value, list | tuple)


def map_leaves(value: Any, function: Callable[[Any], Any]) -> Any:
    """``value`` with every leaf replaced by ``function(leaf)``; lists stay lists and
    tuples tuples."""
    if is_branch(value):
        return type(value)(map_leaves(item, function) for item in value)
    return function(value)


def leaves(value: Any) -> list[Any]:
    """Every leaf, depth first."""
    found, pending = [], [value]
    while pending:
        item = pending.pop()
        if is_branch(item):
            pending.extend(reversed(item))
        else:
            found.append(item)
    return found


def paired_leaves(first: Any, second: Any) -> list[tuple[Any, Any]] | None:
    """The leaves of two trees side by side, or None when their shapes differ (a branch
    against a leaf, or branches of different lengths)."""
    pairs: list[tuple[Any, Any]] = []
    pending = [(first, second)]
    while pending:
        left, right = pending.pop()
        if not is_branch(left) and not is_branch(right):
            pairs.append((left, right))
        elif not (is_branch(left) and is_branch(right)) or len(left) != len(right):
            return None
        else:
            pending.extend(reversed(list(zip(left, right, strict=True))))
    return pairs
