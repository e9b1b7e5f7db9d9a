"""Screening before anything runs: the candidate's Python and C++ text, parsed, never run.

``run_static_checks`` is the stage the verifier runs first; ``static_verdict`` is the
static-only check (``kerneltrials check --static-only``). Nothing here imports torch or
the build machinery. The checks and the attack each stops: docs/design/anticheat.md.
"""

from __future__ import annotations

from kerneltrials.verifier.static._checks import ESCAPE_CODES, StaticReport, run_static_checks
from kerneltrials.verifier.static._screen import STATIC_PASSED, static_verdict

__all__ = ["ESCAPE_CODES", "STATIC_PASSED", "StaticReport", "run_static_checks", "static_verdict"]
