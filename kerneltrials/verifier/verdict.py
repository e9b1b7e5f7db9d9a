"""The verdict: the one record the verifier produces for a candidate.

Its JSON form is a stable interface (DESIGN.md, "Verdict"): other tools read it, the
results store keeps it, the leaderboard shows it. A change to its fields bumps
``SCHEMA_VERSION`` and comes with a migration in ``migrate_verdict``.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = 1


class Status(StrEnum):
    """How a verification ended. The first group is the candidate's outcome; the last two are not."""

    CORRECT = "correct"
    INCORRECT = "incorrect"
    COMPILE_ERROR = "compile_error"
    RUNTIME_ERROR = "runtime_error"
    TIMEOUT = "timeout"
    REJECTED = "rejected"
    ERROR = "error"  # the harness or machine failed: never counted against the candidate
    NOT_RUN = "not_run"  # built, but this machine cannot execute it (e.g. CUDA without a GPU)


#: Statuses that scoring leaves out of the denominator (and reports separately).
EXCLUDED_STATUSES = frozenset({Status.ERROR, Status.NOT_RUN})


class TimingStats(BaseModel):
    """Robust summary of one side's repeated measurements of one configuration."""

    model_config = ConfigDict(extra="allow")

    median: float  # milliseconds
    iqr: float  # milliseconds, q75 - q25
    n: int  # number of timed calls
    rse: float | None = None  # relative standard error of the median


class ConfigResult(BaseModel):
    """The outcome on one shape configuration."""

    model_config = ConfigDict(extra="allow")

    name: str  # "public-0", "hidden-2", ...
    kind: Literal["public", "hidden"]
    params: dict[str, Any]
    passed: bool
    max_abs_err: float | None = None
    max_norm_err: float | None = None  # max|out-ref| / max(max|ref|, tiny)
    detail: str | None = None  # first failure on this configuration, if any
    times_ms: dict[str, TimingStats] = Field(default_factory=dict)  # candidate / eager / compile
    #: Per input seed: time inside compiled calls / ``forward`` time (docs/design/anticheat.md).
    custom_shares: list[float] = Field(default_factory=list)


class Verdict(BaseModel):
    """Everything the verifier decided about one candidate on one task."""

    model_config = ConfigDict(extra="allow")

    schema_version: int = SCHEMA_VERSION
    task: str
    backend: str
    status: Status
    compiled: bool = False
    correct: bool = False
    speedup: float | None = None  # eager time / candidate time, geomean over configurations
    speedup_compile: float | None = None  # torch.compile time / candidate time
    configs: list[ConfigResult] = Field(default_factory=list)
    reasons: list[str] = Field(default_factory=list)
    policy: Literal["strict", "mixed"] = "mixed"
    custom_share: float | None = None
    suspicious: bool = False
    isolation: dict[str, Any] = Field(default_factory=dict)
    hardware: dict[str, Any] = Field(default_factory=dict)
    harness_version: str = ""
    hidden_seed: int | None = None
    build: dict[str, Any] = Field(default_factory=dict)  # cache_hit, build_s, key
    durations_s: dict[str, float] = Field(default_factory=dict)
    profile: dict[str, Any] | None = None  # profiler summary for agent feedback (optional)

    def to_json(self, indent: int | None = 2) -> str:
        return self.model_dump_json(indent=indent)

    def to_dict(self) -> dict[str, Any]:
        return json.loads(self.model_dump_json())


def migrate_verdict(data: dict[str, Any]) -> Verdict:
    """Load a stored verdict of any schema version into the current model."""
    version = int(data.get("schema_version", 1))
    if version > SCHEMA_VERSION:
        raise ValueError(
            f"verdict schema_version {version} is newer than this harness understands "
            f"({SCHEMA_VERSION}): upgrade kerneltrials"
        )
    return Verdict.model_validate(data)


def verdict_json_schema() -> dict[str, Any]:
    """The JSON Schema shipped with the package (also in ``verdict.schema.json``)."""
    return Verdict.model_json_schema()
