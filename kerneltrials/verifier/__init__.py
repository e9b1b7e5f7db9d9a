"""The verifier: static checks, build, correctness, integrity and timing, to a verdict."""

from kerneltrials.verifier._build import BuildArtifact, BuildRequest, CompileError
from kerneltrials.verifier._check import check
from kerneltrials.verifier._options import QUICK_TIMING, CheckOptions, TimingOptions
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
