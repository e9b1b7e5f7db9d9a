"""The site's main table reads stored scores only: ranking of stored intervals, and no
import of the scorer anywhere in the leaderboard package."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import kerneltrials.leaderboard
from kerneltrials.leaderboard._scores import rank_by_intervals

pytestmark = pytest.mark.timeout(60)

PACKAGE = Path(kerneltrials.leaderboard.__file__).parent


@pytest.mark.parametrize(
    ("intervals", "expected"),
    [
        ([], []),
        ([("a", 1.0, 2.0)], [("a", 1)]),
        # b lies entirely above a; c overlaps both
        ([("a", 1.0, 1.5), ("b", 2.0, 3.0), ("c", 1.4, 2.1)], [("b", 1), ("c", 1), ("a", 2)]),
        # touching intervals overlap (strictly above is required)
        ([("a", 1.0, 2.0), ("b", 2.0, 3.0)], [("b", 1), ("a", 1)]),
        ([("a", 3.0, 4.0), ("b", 2.0, 2.5), ("c", 1.0, 1.5)], [("a", 1), ("b", 2), ("c", 3)]),
        ([("none", None, None), ("a", 0.5, 0.6)], [("a", 1), ("none", 2)]),
    ],
)
def test_rank_by_intervals(intervals: list, expected: list) -> None:
    assert rank_by_intervals(intervals) == expected


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports (top level or inside a function)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize("module", sorted(PACKAGE.glob("*.py")), ids=lambda p: p.stem)
def test_the_leaderboard_never_imports_the_scorer(module: Path) -> None:
    # the site shows what the results layer stored; scoring there would be a second scorer
    found = {name for name in imported_modules(module)
             if name == "kerneltrials.scoring" or name.startswith("kerneltrials.scoring.")}  # fmt: skip
    assert not found, f"{module.name} imports {sorted(found)}: read stored scores instead"
