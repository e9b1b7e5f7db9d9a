"""The records the store reads and writes: dataclasses with a ``version`` field.

JSON columns are decoded into Python values here, so callers never see raw SQL rows.
``version`` is the record layout (``RECORD_VERSION``); it changes together with the schema.
A stored score report has its own layout version (``ScoreRecord.version``, the
``scoring.SCORES_VERSION`` it was computed under).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import asdict, dataclass, field
from typing import Any

from kerneltrials.verifier.verdict import Verdict, migrate_verdict

RECORD_VERSION = 1
#: ``stopped``: the run ended early on its own terms (``--max-cost``, a provider that
#: rejects the key); ``interrupted``: a signal ended it. Both resume with ``--resume``.
RUN_STATUSES = ("running", "finished", "stopped", "interrupted")


def canonical_json(value: Any) -> str:
    """Compact JSON with sorted keys: equal values give equal text (used for unique keys)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def hardware_key(fingerprint: dict[str, Any] | str) -> str:
    """A short stable id for a hardware fingerprint (a string is taken as already a key)."""
    if isinstance(fingerprint, str):
        return fingerprint
    return hashlib.sha256(canonical_json(fingerprint).encode()).hexdigest()[:16]


def _loads(text: str | None, default: Any) -> Any:
    return default if text is None else json.loads(text)


@dataclass(frozen=True)
class RunRecord:
    """One evaluation run: a model + agent on a task selection, with its provenance."""

    id: int
    name: str
    model: str
    agent: str
    backend: str
    profile: str
    hardware: dict[str, Any]  # the fingerprint: CPU/GPU model, cores, driver, torch, toolchain
    hardware_key: str  # hardware_key(hardware): groups runs by machine
    harness_version: str
    task_set_version: str
    git_commit: str | None
    hidden_seed: int | None
    started_at: str  # ISO 8601, UTC
    ended_at: str | None
    status: str  # running / finished / stopped / interrupted
    config: dict[str, Any]  # every eval option, as given
    task_ids: list[str]  # the selection: the fast_p denominator
    hidden: bool = False  # a test run: kept in the store, left off the leaderboard
    stop_reason: str | None = None  # why a stopped or interrupted run ended
    version: int = RECORD_VERSION

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> RunRecord:
        return cls(
            id=row["id"],
            name=row["name"],
            model=row["model"],
            agent=row["agent"],
            backend=row["backend"],
            profile=row["profile"],
            hardware=_loads(row["hardware"], {}),
            hardware_key=row["hardware_key"],
            harness_version=row["harness_version"],
            task_set_version=row["task_set_version"],
            git_commit=row["git_commit"],
            hidden_seed=row["hidden_seed"],
            started_at=row["started_at"],
            ended_at=row["ended_at"],
            status=row["status"],
            config=_loads(row["config"], {}),
            task_ids=_loads(row["task_ids"], []),
            hidden=bool(row["hidden"]),
            stop_reason=row["stop_reason"],
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class AttemptRecord:
    """One candidate's verdict for one task, round and sample of a run."""

    id: int
    run_id: int
    task_id: str
    round: int  # refinement step within a sample (0 for one-shot agents)
    sample: int  # independent sample index (pass@k counts these)
    status: str
    speedup: float | None
    speedup_compile: float | None
    verdict: Verdict  # the full verdict, read through ``migrate_verdict`` (any schema version)
    source: str | None
    timings: dict[str, Any]  # harness-side durations: generate_s, build_s, run_s, ...
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    transcript: list[Any]  # the agent's messages, as the provider returned them
    created_at: str
    version: int = RECORD_VERSION

    @property
    def suspicious(self) -> bool:
        """The verdict's implausible-speedup flag (scoring leaves its speedup out)."""
        return bool(self.verdict.suspicious)

    @property
    def key(self) -> tuple[str, int, int]:
        """What ``--resume`` compares: (task_id, round, sample)."""
        return (self.task_id, self.round, self.sample)

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> AttemptRecord:
        return cls(
            id=row["id"],
            run_id=row["run_id"],
            task_id=row["task_id"],
            round=row["round"],
            sample=row["sample"],
            status=row["status"],
            speedup=row["speedup"],
            speedup_compile=row["speedup_compile"],
            verdict=migrate_verdict(_loads(row["verdict"], {})),
            source=row["source"],
            timings=_loads(row["timings"], {}),
            prompt_tokens=row["prompt_tokens"],
            completion_tokens=row["completion_tokens"],
            cost_usd=row["cost_usd"],
            transcript=_loads(row["transcript"], []),
            created_at=row["created_at"],
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields (the verdict as ``Verdict.to_dict()``)."""
        return {**asdict(self), "verdict": self.verdict.to_dict()}


@dataclass(frozen=True)
class VerificationRecord:
    """A maintainer's re-execution of a submission bundle (issue 9: the "verified" mark).

    Keyed by run name and bundle hash, not by a foreign key: the verified run usually
    lives in the submitter's store, not in the verifier's.
    """

    id: int
    run_name: str
    bundle_sha256: str
    verified_at: str
    verifier_host: str
    holds: bool  # every claim held
    outcome: dict[str, Any]  # per task: claimed vs re-measured status/speedup, notes
    hardware: dict[str, Any] = field(default_factory=dict)  # the verifying machine
    #: baseline -> the stored report of the re-measured figures (empty: none re-measured)
    scores: dict[str, dict[str, Any]] = field(default_factory=dict)
    version: int = RECORD_VERSION

    @classmethod
    def from_row(
        cls, row: sqlite3.Row, scores: dict[str, dict[str, Any]] | None = None
    ) -> VerificationRecord:
        return cls(
            id=row["id"],
            run_name=row["run_name"],
            bundle_sha256=row["bundle_sha256"],
            verified_at=row["verified_at"],
            verifier_host=row["verifier_host"],
            holds=bool(row["holds"]),
            outcome=_loads(row["outcome"], {}),
            hardware=_loads(row["hardware"], {}),
            scores=dict(scores or {}),
        )


@dataclass(frozen=True)
class ScoreRecord:
    """A stored score report, so the leaderboard reads scores and never re-scores.

    ``version`` is the report's layout (``scoring.SCORES_VERSION`` when it was computed by
    ``scoring.standard_report``; 0 for a report saved without one).
    """

    run_id: int
    baseline: str
    report: dict[str, Any]  # ScoreReport.to_json()
    created_at: str
    version: int

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> ScoreRecord:
        return cls(
            run_id=row["run_id"],
            baseline=row["baseline"],
            report=_loads(row["report"], {}),
            created_at=row["created_at"],
            version=row["version"],
        )
