"""The verifier: static checks, build, correctness, integrity and timing, to a verdict.

The verdict model loads at once; everything that needs torch loads on first use, so
reading and scoring stored verdicts never pays torch's import time.
"""

from __future__ import annotations

import importlib
from typing import Any

from kerneltrials.verifier.verdict import (
    EXCLUDED_STATUSES,
    SCHEMA_VERSION,
    ConfigResult,
    Status,
    TimingStats,
    Verdict,
    migrate_verdict,
    verdict_json_schema,
)

_LAZY = {
    "check": "kerneltrials.verifier._check",
    "CheckOptions": "kerneltrials.verifier._options",
    "TimingOptions": "kerneltrials.verifier._options",
    "QUICK_TIMING": "kerneltrials.verifier._options",
    "BuildArtifact": "kerneltrials.verifier._build",
    "BuildRequest": "kerneltrials.verifier._build",
    "CompileError": "kerneltrials.verifier._build",
}

__all__ = [
    "EXCLUDED_STATUSES",
    "QUICK_TIMING",
    "SCHEMA_VERSION",
    "BuildArtifact",
    "BuildRequest",
    "CheckOptions",
    "CompileError",
    "ConfigResult",
    "Status",
    "TimingOptions",
    "TimingStats",
    "Verdict",
    "check",
    "migrate_verdict",
    "verdict_json_schema",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'kerneltrials.verifier' has no attribute {name!r}")
