"""Run one build tool (compiler, linker, nm) and fail with its output."""

from __future__ import annotations

import subprocess
from pathlib import Path


def run_tool(command: list[str], cwd: Path) -> str:
    """Run ``command`` in ``cwd``; returns its stdout, raises CalledProcessError with its
    output when it exits non-zero (the caller decides whose failure that is)."""
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if result.returncode != 0:
        raise subprocess.CalledProcessError(result.returncode, command, result.stdout, result.stderr)
    return result.stdout
