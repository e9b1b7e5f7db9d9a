"""What ``TOOL --version`` prints: for cache keys (verifier), the fast build path and doctor."""

from __future__ import annotations

import functools
import subprocess


@functools.cache
def version_lines(tool: str) -> tuple[str, ...] | None:
    """The non-empty lines of ``tool --version`` (stdout, else stderr), stripped; None when
    the tool is missing, hangs or exits non-zero."""
    try:
        result = subprocess.run([tool, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = tuple(line.strip() for line in (result.stdout or result.stderr).splitlines()
                  if line.strip())
    return lines if result.returncode == 0 else None


def version_line(tool: str, last: bool = False) -> str | None:
    """The line naming the version: the first (the last for nvcc); None when ``tool`` is
    missing, fails or prints nothing."""
    lines = version_lines(tool)
    return (lines[-1] if last else lines[0]) if lines else None
