"""Every hand-written reference solution (the ``reference`` model) is verified ``correct``.

The solutions live beside the tasks, in ``kerneltrials/tasks/reference/level<N>/<name>.py``,
one per built-in task ``L<N>/<name>``; each is checked by the real verifier on the cpu
backend under the task's own policy (strict for level 1, mixed above). Each one compiles a
C++ extension (tens of seconds on a small machine), hence ``slow`` and a long timeout.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import kerneltrials
from kerneltrials.tasks import builtin_task_paths
from tests.timings import ONE_CALL_TIMING

REFERENCE_ROOT = Path(kerneltrials.__file__).parent / "tasks" / "reference"

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]


def reference_solutions() -> list[tuple[str, Path]]:
    """(task id, solution file) for every reference solution on disk, sorted by id."""
    found = []
    for path in sorted(REFERENCE_ROOT.glob("level*/*.py")):
        if path.name.startswith("_"):
            continue
        level = path.parent.name.removeprefix("level")
        found.append((f"L{level}/{path.stem}", path))
    return found


SOLUTIONS = reference_solutions()


def test_every_reference_solution_belongs_to_a_builtin_task() -> None:
    tasks = builtin_task_paths()
    orphans = [task_id for task_id, _ in SOLUTIONS if task_id not in tasks]
    assert not orphans, f"reference solutions without a task: {orphans}"
    assert len(SOLUTIONS) >= 1


@pytest.mark.parametrize(("task_id", "path"), SOLUTIONS, ids=[task_id for task_id, _ in SOLUTIONS])
def test_reference_solution_is_correct(task_id: str, path: Path) -> None:
    from kerneltrials.verifier import CheckOptions

    # One input seed and one timed call a side: this sweep asks "is it correct", not
    # "how fast", but a `correct` verdict still needs its timed outputs checked.
    options = CheckOptions(timing=ONE_CALL_TIMING, compile_baseline=False, seeds=1)
    verdict = kerneltrials.check(task_id, path.read_text(), backend="cpu", hidden_seed=20240,
                                 compile_baseline=False, options=options)
    assert verdict.status == "correct", (verdict.status, verdict.reasons)
    assert verdict.correct and verdict.compiled
