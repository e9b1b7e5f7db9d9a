"""The verifier: static checks, build, correctness, integrity and timing, to a verdict.

Two stages, ``build`` (static checks, collect and compile jobs) and ``run``
(correctness, timing), and ``check`` composing them. Where each part runs is in its
folder's name: ``static/`` (screening), ``build/`` (the trusted side of the build),
``worker/`` (inside the sandboxed job that hosts candidate code), ``harness/`` (the
trusted parent), ``protocol/`` (the typed messages between the two);
docs/design/architecture.md. The verdict model loads at once; everything that needs
torch loads on first use, so reading and scoring stored verdicts never pays torch's
import time.
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
    "build": "kerneltrials.verifier._check",
    "run": "kerneltrials.verifier._check",
    "Built": "kerneltrials.verifier._built",
    "Hooks": "kerneltrials.verifier._built",
    "CheckOptions": "kerneltrials.verifier._options",
    "TimingOptions": "kerneltrials.verifier._options",
    "QUICK_TIMING": "kerneltrials.verifier._options",
    "BuildArtifact": "kerneltrials.verifier.protocol",
    "BuildRequest": "kerneltrials.verifier.protocol",
    "CompileError": "kerneltrials.verifier.protocol",
    "hardware_fingerprint": "kerneltrials.verifier.harness._hardware",
    "prestart": "kerneltrials.verifier._prestart",
}

__all__ = [
    "EXCLUDED_STATUSES",
    "QUICK_TIMING",
    "SCHEMA_VERSION",
    "BuildArtifact",
    "BuildRequest",
    "Built",
    "CheckOptions",
    "CompileError",
    "ConfigResult",
    "Hooks",
    "Status",
    "TimingOptions",
    "TimingStats",
    "Verdict",
    "build",
    "check",
    "hardware_fingerprint",
    "migrate_verdict",
    "prestart",
    "run",
    "verdict_json_schema",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'kerneltrials.verifier' has no attribute {name!r}")
