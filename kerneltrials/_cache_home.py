"""Where kerneltrials keeps what it measured or built for the next run on this machine."""

from __future__ import annotations

import os
from pathlib import Path


def cache_home() -> Path:
    """``KERNELTRIALS_CACHE``, else ``~/.cache/kerneltrials``: builds, derived task sizes
    and the runs' baselines live in folders under it. Read on every call, so a process
    that sets the variable later (a test) gets its own."""
    root = os.environ.get("KERNELTRIALS_CACHE")
    return Path(root) if root else Path(os.path.expanduser("~")) / ".cache" / "kerneltrials"
