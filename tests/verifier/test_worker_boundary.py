"""The trust boundary in the import graph: the worker that hosts candidate code imports
nothing of the trusted side (docs/design/architecture.md).

A process started as ``python -m kerneltrials.verifier.worker`` shares its address space
with the candidate. Whatever it imports, the candidate can read and patch; so it may
import only its own package, the typed protocol shared with the parent, the task loader
(and what the task loader imports), and the sandbox's worker end of the channel (a
standard-library-only module). The graph is read with ``ast`` (every import, at module
level or in a function), followed transitively.
"""

from __future__ import annotations

import pytest

from tests.test_import_graph import PACKAGE, import_graph, reachable

WORKER = f"{PACKAGE}.verifier.worker"
ENTRY_POINTS = (f"{WORKER}.__main__", f"{WORKER}._dispatch")
#: The worker's own package, the shared protocol, the task loader.
ALLOWED_PREFIXES = (f"{WORKER}.", f"{PACKAGE}.verifier.protocol", f"{PACKAGE}.tasks")
#: The sandbox's worker end of the private channel and the cache root the task loader's
#: derived sizes live under (both standard-library only, imports nothing of the package).
LEAF_HELPERS = (f"{PACKAGE}.sandbox._channel", f"{PACKAGE}._cache_home")
ALLOWED_MODULES = {*LEAF_HELPERS, WORKER, f"{PACKAGE}.verifier", f"{PACKAGE}.verifier.protocol"}


def _allowed(module: str) -> bool:
    return module in ALLOWED_MODULES or module.startswith(ALLOWED_PREFIXES)


def _trusted_side_reached(start: str) -> list[str]:
    graph = import_graph()
    return sorted(module for module in reachable(graph, start) if not _allowed(module))


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_the_worker_imports_nothing_of_the_trusted_side(entry: str) -> None:
    outside = _trusted_side_reached(entry)
    assert not outside, f"{entry} imports {outside}: move it into verifier/worker/ or protocol/"


def test_the_worker_really_reaches_its_operations_and_the_protocol() -> None:
    # A graph that lost its edges would pass the test above: check known ones exist.
    reached = reachable(import_graph(), f"{WORKER}.__main__")
    assert {f"{WORKER}._run", f"{WORKER}._integrity", f"{PACKAGE}.verifier.protocol",
            f"{PACKAGE}.tasks"} <= reached


def test_the_allowed_helpers_import_nothing_further() -> None:
    graph = import_graph()
    for helper in LEAF_HELPERS:
        assert not graph[helper], f"{helper} imports {graph[helper]}"
    protocol = reachable(graph, f"{PACKAGE}.verifier.protocol")
    assert protocol <= {f"{PACKAGE}.sandbox._channel"} | {
        module for module in graph if module.startswith(f"{PACKAGE}.verifier.protocol")}


def test_the_tasks_package_stays_light() -> None:
    """The task loader is allowed in the worker; what it imports comes along, so it must
    not reach the verifier, the scheduler or the agents."""
    reached = reachable(import_graph(), f"{PACKAGE}.tasks")
    heavy = sorted(m for m in reached if m.startswith((f"{PACKAGE}.verifier",
                                                      f"{PACKAGE}.scheduler",
                                                      f"{PACKAGE}.agents")))
    assert not heavy, f"kerneltrials.tasks imports {heavy}"


def test_the_boundary_test_would_catch_a_trusted_import() -> None:
    assert not _allowed(f"{PACKAGE}.verifier.harness._judge")
    assert not _allowed(f"{PACKAGE}.verifier.builds._compiler")
    assert not _allowed(f"{PACKAGE}.sandbox._process")
