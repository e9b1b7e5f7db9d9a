"""Find tasks: built-in ones by id (``L1/relu``), any file by path."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from kerneltrials.tasks._parse import read_task_file
from kerneltrials.tasks._spec import TaskError, TaskSpec

BUILTIN_ROOT = Path(__file__).parent
_LEVEL_DIR = re.compile(r"^level(\d+)$")


def builtin_task_paths() -> dict[str, Path]:
    """Built-in task ids -> files, from ``tasks/level<N>/<name>.py``."""
    paths = {}
    for level_dir in sorted(BUILTIN_ROOT.glob("level*")):
        match = _LEVEL_DIR.match(level_dir.name)
        if not match or not level_dir.is_dir():
            continue
        for path in sorted(level_dir.glob("*.py")):
            if not path.name.startswith("_"):
                paths[f"L{match.group(1)}/{path.stem}"] = path
    return paths


def task_id_for_path(path: Path) -> str:
    """``kb/L<level>/<stem>`` when the path shows a KernelBench level, else ``path:<stem>``."""
    resolved = path.resolve()
    try:
        relative = resolved.relative_to(BUILTIN_ROOT.resolve())
        match = _LEVEL_DIR.match(relative.parts[0])
        if match and len(relative.parts) == 2:
            return f"L{match.group(1)}/{path.stem}"
    except ValueError:
        pass
    for part in reversed(resolved.parts[:-1]):
        match = _LEVEL_DIR.match(part)
        if match:
            return f"kb/L{match.group(1)}/{path.stem}"
    return f"path:{path.stem}"


@functools.cache
def _load_builtin(task_id: str) -> TaskSpec:
    return read_task_file(builtin_task_paths()[task_id], task_id)


def load_task(task: str | Path) -> TaskSpec:
    """A task by built-in id or by file path; raises :class:`TaskError` naming the cause."""
    text = str(task)
    builtin = builtin_task_paths()
    if text in builtin:
        return _load_builtin(text)
    path = Path(text)
    if path.suffix == ".py" or path.exists():
        if not path.is_file():
            raise TaskError(text, "no such task file")
        return read_task_file(path, task_id_for_path(path))
    close = _close_ids(text, list(builtin))
    hint = f"; did you mean {', '.join(close)}?" if close else "; see `kerneltrials tasks list`"
    raise TaskError(text, f"unknown task id{hint}")


def _close_ids(text: str, ids: list[str], limit: int = 5) -> list[str]:
    """Ids with the same name first, then the closest spellings."""
    import difflib

    name = text.split("/")[-1]
    exact = [task_id for task_id in ids if task_id.split("/")[-1] == name]
    by_name = {task_id.split("/")[-1]: task_id for task_id in ids}
    similar = [by_name[n] for n in difflib.get_close_matches(name, list(by_name), n=limit)]
    return list(dict.fromkeys(exact + similar))[:limit]


def list_tasks(level: int | None = None) -> list[TaskSpec]:
    """All built-in tasks (optionally one level), sorted by id."""
    tasks = [_load_builtin(task_id) for task_id in builtin_task_paths()]
    return [t for t in tasks if level is None or t.level == level]
