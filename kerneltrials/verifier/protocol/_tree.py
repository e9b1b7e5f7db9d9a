"""The one walker over nested outputs: a leaf, or a list/tuple of nested outputs.

Model outputs (tensors in lists and tuples), their described structures and compared
pairs are all such trees; both the worker and the parent walk them with these. Pure
Python: no torch, so the worker and the static-only path may import it.
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
    if is_branch(value):
        return [leaf for item in value for leaf in leaves(item)]
    return [value]


def paired_leaves(first: Any, second: Any) -> list[tuple[Any, Any]] | None:
    """The leaves of two trees side by side, or None when their shapes differ (a branch
    against a leaf, or branches of different lengths)."""
    if not is_branch(first) and not is_branch(second):
        return [(first, second)]
    if not (is_branch(first) and is_branch(second)) or len(first) != len(second):
        return None
    pairs: list[tuple[Any, Any]] = []
    for left, right in zip(first, second, strict=True):
        found = paired_leaves(left, right)
        if found is None:
            return None
        pairs += found
    return pairs
