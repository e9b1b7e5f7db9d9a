"""The verdict: the one record the verifier produces for a candidate.

Its JSON form is a stable interface (DESIGN.md, "Verdict"): other tools read it, the
results store keeps it, the leaderboard shows it. A change to its fields bumps
``SCHEMA_VERSION`` and comes with a migration in ``migrate_verdict``.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Any, Literal, Protocol, cast

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
    #: Per call, the parent's window time that neither this side's timer nor the timing
    #: loop's calibration accounts for (about 0 when honest; see docs/design/timing.md).
    untimed_ms: float | None = None
    #: A baseline the run timed in an earlier check and this one reused (the run's one
    #: denominator; docs/design/timing.md, "One baseline per run"): the figures above are
    #: that measurement's, and ``recheck_median`` the median of the few batches this
    #: check timed to calibrate its timing loop (how far the machine drifted since).
    reused: bool = False
    recheck_median: float | None = None


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
    #: ``mixed`` only: per kind of the reference's work (contraction, pointwise), the share
    #: PyTorch did not do in the candidate's calls (the smallest over them); a candidate
    #: below ``MIN_OWN_SHARE`` in every kind is a passthrough (docs/design/anticheat.md).
    own_work_shares: dict[str, float] = Field(default_factory=dict)


Policy = Literal["strict", "mixed"]


class PolicySource(Protocol):
    """What the verdict constructors read from a task (``tasks.TaskSpec`` satisfies it)."""

    @property
    def id(self) -> str: ...

    def default_policy(self) -> str: ...


def resolve_policy(task: PolicySource | str, policy: str | None) -> Policy:
    """``policy`` when forced, else the task's own (strict on level 1, see
    ``TaskSpec.default_policy``); a bare task id has no level, so it needs ``policy``."""
    if policy is None:
        if isinstance(task, str):
            raise ValueError(f"a verdict for task id {task!r} needs its policy "
                             "(pass the TaskSpec, or policy='strict'/'mixed')")
        policy = task.default_policy()
    if policy not in ("strict", "mixed"):
        raise ValueError(f"unknown policy {policy!r}: expected 'strict' or 'mixed'")
    return cast(Policy, policy)


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
    #: 95% interval of ``speedup``: the geometric means of the configurations' interval
    #: bounds (each from the medians' standard errors; docs/design/timing.md).
    speedup_interval: list[float] | None = None
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

    @classmethod
    def no_code(cls, task: PolicySource | str, backend: str, policy: str | None = None,
                reason: str = "agent:no_code", hidden_seed: int | None = None) -> Verdict:
        """The verdict of an agent reply that held no code block: ``incorrect`` (the
        candidate's failure, counted against it), nothing compiled, ``reason`` alone.

        ``task`` is a ``TaskSpec`` (its policy is the default) or a task id (then
        ``policy`` is required); a forced ``policy`` wins either way.
        """
        return cls._without_run(task, backend, policy, Status.INCORRECT, reason, hidden_seed)

    @classmethod
    def infrastructure_error(cls, task: PolicySource | str, backend: str,
                             policy: str | None = None, reason: str = "harness:unknown",
                             hidden_seed: int | None = None) -> Verdict:
        """A failure of the harness or machine (``error``: excluded from scoring, never
        charged to the candidate, retried by ``eval``). ``reason`` is ``code:detail``,
        e.g. ``harness:worker_lost:…`` or ``task:…``; ``task`` and ``policy`` as in
        ``no_code``."""
        return cls._without_run(task, backend, policy, Status.ERROR, reason, hidden_seed)

    @classmethod
    def _without_run(cls, task: PolicySource | str, backend: str, policy: str | None,
                     status: Status, reason: str, hidden_seed: int | None) -> Verdict:
        return cls(task=task if isinstance(task, str) else task.id, backend=backend,
                   status=status, policy=resolve_policy(task, policy), reasons=[reason],
                   hidden_seed=hidden_seed)

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
