"""A configuration applied to a task's source: its module constants replaced (no torch,
so listing and describing tasks stays light)."""

from __future__ import annotations

import ast
from typing import Any


def apply_config(source: str, overrides: dict[str, Any]) -> str:
    """The task source with module constants replaced, so derived constants follow."""
    if not overrides:
        return source
    tree = ast.parse(source)
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id in overrides):
            node.value = ast.Constant(overrides[node.targets[0].id])
    return ast.unparse(tree)
