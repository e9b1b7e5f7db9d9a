"""Where a run came from: harness version, task-set version, git commit."""

from __future__ import annotations

import functools
import hashlib
import subprocess
from pathlib import Path

from kerneltrials.tasks import builtin_task_paths

PACKAGE_ROOT = Path(__file__).resolve().parents[1]


@functools.cache
def task_set_version() -> str:
    """A short hash of every built-in task's id and source: changes when any task does."""
    digest = hashlib.sha256()
    for task_id, path in sorted(builtin_task_paths().items()):
        digest.update(task_id.encode() + b"\0" + path.read_bytes() + b"\0")
    return f"{len(builtin_task_paths())}-{digest.hexdigest()[:12]}"


@functools.cache
def git_commit() -> str | None:
    """The checkout's commit, when the package runs from a git checkout."""
    try:
        result = subprocess.run(["git", "rev-parse", "HEAD"], cwd=PACKAGE_ROOT, timeout=10,
                                capture_output=True, text=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout.strip() or None if result.returncode == 0 else None
