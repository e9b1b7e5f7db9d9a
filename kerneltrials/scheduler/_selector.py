"""Task selectors: ``L1``, ``L1/relu``, ``L2/*conv*``, several separated by commas."""

from __future__ import annotations

import fnmatch
from pathlib import Path

from kerneltrials.tasks import TaskError, TaskSpec, builtin_task_paths, load_task


def select_tasks(selector: str) -> list[TaskSpec]:
    """The tasks a selector names, in selector order, without duplicates.

    Each comma-separated part is a level (``L2``, or ``all``), a built-in id, a glob over
    built-in ids, or a path to a task file.

    Raises:
        TaskError: a part matches nothing (the message names it).
    """
    builtin = list(builtin_task_paths())
    chosen: list[str] = []
    for part in (p.strip() for p in selector.split(",")):
        if not part:
            continue
        matches = _match(part, builtin)
        if not matches:
            raise TaskError(part, "matches no task (try `kerneltrials tasks list`; selectors "
                                  "are levels like L1, ids like L1/relu, globs like L2/*conv*)")
        chosen += [m for m in matches if m not in chosen]
    if not chosen:
        raise TaskError(selector, "selects no task")
    return [load_task(task_id) for task_id in chosen]


def _match(part: str, builtin: list[str]) -> list[str]:
    if part.lower() == "all":
        return builtin
    if part[:1] in "Ll" and part[1:].isdigit():
        return [task_id for task_id in builtin if task_id.startswith(f"L{part[1:]}/")]
    if any(char in part for char in "*?["):
        return [task_id for task_id in builtin if fnmatch.fnmatchcase(task_id, part)]
    if part in builtin:
        return [part]
    if Path(part).is_file():
        return [part]
    return []
