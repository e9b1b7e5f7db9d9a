"""The task set as a Hugging Face ``datasets`` dataset: export, and import (ours or KernelBench's).

Exported columns: ``id``, ``level``, ``name``, ``source`` (the file's exact text) and
``metadata`` (the ``TASK`` dict as a JSON string, ``"{}"`` without one). Import accepts
that layout and KernelBench-style ones (a source column named ``code``/``source``/…,
a ``level`` column or ``level_<N>`` split names, a ``name`` or ``problem_id`` column),
writes ``<dest>/level<N>/<name>.py`` byte for byte, and reports the ids the files load
under (``kb/L<N>/<name>``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kerneltrials.tasks._parse import parse_task_source
from kerneltrials.tasks._registry import builtin_task_paths, load_task, task_id_for_path
from kerneltrials.tasks._spec import TaskError

SOURCE_COLUMNS = ("source", "code", "content", "program", "text")
NAME_COLUMNS = ("name", "problem_name", "filename", "file_name", "task")
_SPLIT_LEVEL = re.compile(r"level[_-]?(\d+)$", re.IGNORECASE)
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass(frozen=True)
class ImportedTask:
    """A task file written by :func:`import_tasks`."""

    id: str  # the id the written file loads under, e.g. "kb/L1/19_ReLU"
    path: Path
    source_id: str | None  # the row's own ``id`` column, when it had one


def _require_datasets() -> Any:
    try:
        import datasets
    except ImportError:
        raise TaskError("datasets", "the `datasets` package is missing: "
                                    "pip install 'kerneltrials[datasets]'") from None
    return datasets


def export_tasks(directory: str | Path, level: int | None = None) -> list[str]:
    """Save the built-in tasks (optionally one level) with ``save_to_disk``; returns their ids."""
    datasets = _require_datasets()
    rows: dict[str, list[Any]] = {"id": [], "level": [], "name": [], "source": [], "metadata": []}
    for task_id, path in builtin_task_paths().items():
        task = load_task(task_id)
        if level is not None and task.level != level:
            continue
        rows["id"].append(task_id)
        rows["level"].append(task.level)
        rows["name"].append(task.name)
        rows["source"].append(path.read_bytes().decode("utf-8"))  # no newline translation
        rows["metadata"].append(json.dumps(task.metadata, sort_keys=True))
    datasets.Dataset.from_dict(rows).save_to_disk(str(directory))
    return list(rows["id"])


def _pick_column(columns: list[str], candidates: tuple[str, ...]) -> str | None:
    lowered = {c.lower(): c for c in columns}
    return next((lowered[c] for c in candidates if c in lowered), None)


def _row_name(row: dict[str, Any], name_column: str | None, index: int) -> str:
    if name_column and row.get(name_column):
        name = Path(str(row[name_column])).name
        name = name[:-3] if name.endswith(".py") else name
    elif row.get("problem_id") is not None:
        name = f"problem_{row['problem_id']}"
    else:
        name = f"task_{index}"
    return _UNSAFE.sub("_", name).strip("._") or f"task_{index}"


def _row_level(row: dict[str, Any], split: str | None, where: str) -> int:
    value = row.get("level")
    if value is None and split and _SPLIT_LEVEL.search(split):
        value = _SPLIT_LEVEL.search(split).group(1)  # type: ignore[union-attr]
    try:
        return int(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise TaskError(where, "no usable level: add a `level` column or name the split "
                               "`level_<N>`") from None


def _load_rows(directory: Path) -> list[tuple[str | None, dict[str, Any]]]:
    """(split name, row) for every row of a Dataset or DatasetDict saved in ``directory``."""
    datasets = _require_datasets()
    try:
        loaded = datasets.load_from_disk(str(directory))
    except (FileNotFoundError, ValueError) as error:
        raise TaskError(str(directory), f"not a saved dataset ({error})") from None
    if isinstance(loaded, datasets.DatasetDict):
        return [(split, dict(row)) for split, part in loaded.items() for row in part]
    return [(None, dict(row)) for row in loaded]


def _plan_files(rows: list[tuple[str | None, dict[str, Any]]], directory: Path,
                dest: Path) -> list[tuple[Path, str, str | None]]:
    """Where each row goes, its source and own id; checks every row parses as a task."""
    if not rows:
        return []
    columns = list(rows[0][1])
    source_column = _pick_column(columns, SOURCE_COLUMNS)
    if source_column is None:
        raise TaskError(str(directory), f"no source column among {columns}; "
                                        f"expected one of {list(SOURCE_COLUMNS)}")
    name_column = _pick_column(columns, NAME_COLUMNS)
    planned: list[tuple[Path, str, str | None]] = []
    taken: set[Path] = set()
    for index, (split, row) in enumerate(rows):
        where = f"{directory} row {index}"
        level = _row_level(row, split, where)
        name = _row_name(row, name_column, index)
        path, suffix = dest / f"level{level}" / f"{name}.py", 2
        while path in taken:
            path, suffix = dest / f"level{level}" / f"{name}_{suffix}.py", suffix + 1
        taken.add(path)
        source = str(row[source_column])
        parse_task_source(source, where, f"kb/L{level}/{path.stem}", path.stem)
        planned.append((path, source, row.get("id")))
    return planned


def import_tasks(directory: str | Path, dest: str | Path | None = None) -> list[ImportedTask]:
    """Write the tasks of a saved dataset as task files under ``dest`` (default DIR/tasks).

    Raises:
        TaskError: not a dataset, no source/level column, or a row that is not a task
            (nothing is written then).
    """
    directory = Path(directory)
    target = Path(dest) if dest is not None else directory / "tasks"
    planned = _plan_files(_load_rows(directory), directory, target)
    imported = []
    for path, source, source_id in planned:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(source.encode("utf-8"))
        imported.append(ImportedTask(task_id_for_path(path), path, source_id))
    return imported
