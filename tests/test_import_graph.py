"""The package's import graph: no import cycle, and the sandbox never imports the verifier.

The graph is read from the source with ``ast``, not from ``sys.modules``: every ``import``
and ``from ... import`` of a ``kerneltrials`` module counts, at module level, inside
functions and under ``if TYPE_CHECKING:`` alike, because a function-level import is a real
edge that only runs later, and hiding it is how a cycle goes unnoticed. An import of
``a.b`` is an edge to ``a.b`` only, not to the package ``a`` that Python also initialises:
otherwise every package whose ``__init__`` re-exports a submodule would be a cycle.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

PACKAGE = "kerneltrials"
PACKAGE_ROOT = Path(__file__).resolve().parent.parent / PACKAGE

# Cycles that exist today and are being removed (issue 18). Each entry is the exact set of
# modules of one strongly connected component of the graph. The list may only shrink: the
# test fails on a cycle that is not listed AND on a listed cycle that no longer exists, so
# whoever breaks a cycle deletes its entry here.
KNOWN_CYCLES: list[frozenset[str]] = []


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE_ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@functools.cache
def package_modules() -> dict[str, Path]:
    """Every module of the package by dotted name."""
    return {module_name(path): path for path in sorted(PACKAGE_ROOT.rglob("*.py"))}


def _absolute(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    """The absolute module of ``from X import ...`` (relative imports resolved)."""
    if node.level == 0:
        return node.module or ""
    base = importer.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imported_modules(importer: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that ``importer`` imports anywhere in its source."""
    targets: set[str] = set()
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(node, importer, is_package)
            for alias in node.names:  # ``from pkg import submodule`` imports the submodule
                submodule = f"{source}.{alias.name}"
                targets.add(submodule if submodule in known else source)
    return {target for target in targets if target in known and target != importer}


@functools.cache
def import_graph() -> dict[str, set[str]]:
    modules = package_modules()
    known = set(modules)
    return {name: imported_modules(name, path, known) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def test_the_graph_sees_function_level_and_relative_imports(tmp_path: Path) -> None:
    source = tmp_path / "mod.py"
    source.write_text("import os\n"
                      "def f():\n"
                      "    from kerneltrials.scheduler import _executor\n"
                      "    from . import _jobs\n"
                      "    import kerneltrials.tasks\n")
    known = {"kerneltrials.scheduler._executor", "kerneltrials.scheduler._jobs",
             "kerneltrials.tasks", "kerneltrials.scheduler", "kerneltrials.scheduler.mod"}
    assert imported_modules("kerneltrials.scheduler.mod", source, known) == {
        "kerneltrials.scheduler._executor", "kerneltrials.scheduler._jobs", "kerneltrials.tasks"}


def test_cycles_finds_each_strongly_connected_component() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": {"e"}, "e": {"d"}, "f": {"a"}}
    assert sorted(map(sorted, cycles(graph))) == [["a", "b", "c"], ["d", "e"]]


def test_the_graph_covers_the_package() -> None:
    graph = import_graph()
    assert "kerneltrials.scheduler._ray_executor" in graph
    # A known edge, so an empty graph cannot pass for an acyclic one.
    assert "kerneltrials.scheduler._executor" in graph["kerneltrials.scheduler._ray_executor"]


def test_no_import_cycle_beyond_the_known_ones() -> None:
    found = set(cycles(import_graph()))
    new = [sorted(component) for component in found - set(KNOWN_CYCLES)]
    gone = [sorted(component) for component in set(KNOWN_CYCLES) - found]
    assert not new, f"import cycles (break them; do not list them): {new}"
    assert not gone, f"these cycles no longer exist as listed: update KNOWN_CYCLES: {gone}"


def reachable(graph: dict[str, set[str]], start: str, through: set[str] | None = None
              ) -> set[str]:
    """Every module ``start`` imports, directly or through others (only through
    ``through`` when given: a module outside it is reached but not followed)."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for target in graph[todo.pop()] - seen:
            seen.add(target)
            if through is None or target in through:
                todo.append(target)
    return seen


def test_reachable_follows_imports_transitively() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": set(), "d": {"a"}}
    assert reachable(graph, "a") == {"b", "c"}
    assert reachable(graph, "a", through={"a"}) == {"b"}


SANDBOX_MODULES = sorted(m for m in package_modules() if m.startswith(f"{PACKAGE}.sandbox"))


@pytest.mark.parametrize("module", SANDBOX_MODULES)
def test_the_sandbox_never_imports_the_verifier(module: str) -> None:
    """The sandbox is the lower layer: it must work (and be tested) without the verifier.

    Imports are followed transitively, through every module of the package.
    """
    graph = import_graph()
    verifier = sorted(m for m in reachable(graph, module)
                      if m.startswith(f"{PACKAGE}.verifier"))
    assert not verifier, f"{module} imports {verifier}"


def test_there_are_sandbox_modules() -> None:
    assert len(SANDBOX_MODULES) > 5
