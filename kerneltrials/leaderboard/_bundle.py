"""Submission bundles: one self-describing JSON file per run (``kerneltrials submit``).

A bundle carries the run's metadata, its environment (the hardware fingerprint), every
attempt with its candidate source, verdict, tokens, cost and transcript, and the run's
stored score reports. ``content_sha256`` is the SHA-256 of the canonical JSON of every
field except itself and ``created_at``, so the same run always hashes the same and the
leaderboard can match a store run to the bundle a maintainer verified. The hash detects
edits and corruption; it is not a signature (anyone can recompute it), which is why
``kerneltrials verify`` re-runs the candidates instead of trusting the file.
See docs/design/leaderboard.md.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kerneltrials.results import (
    AttemptRecord,
    ResultsStore,
    RunRecord,
    hardware_key,
    save_run_scores,
)
from kerneltrials.verifier.verdict import Verdict

BUNDLE_VERSION = 1
BUNDLE_KIND = "kerneltrials-submission"
SCHEMA_FILE = Path(__file__).with_name("bundle.schema.json")
_UNHASHED = {"content_sha256", "created_at"}


class BundleError(ValueError):
    """A bundle file that cannot be read: not JSON, wrong kind or version, bad fields."""


class BundleRun(BaseModel):
    """The run's metadata, as the results store recorded it."""

    model_config = ConfigDict(extra="forbid")

    name: str
    model: str
    agent: str  # the strategy: one-shot, refine, coder-judge, ...
    backend: str  # cpu / cuda
    profile: str
    harness_version: str
    task_set_version: str
    git_commit: str | None = None
    hidden_seed: int | None = None
    started_at: str  # ISO 8601, UTC
    ended_at: str | None = None
    status: str  # running / finished / stopped
    config: dict[str, Any] = Field(default_factory=dict)  # the eval options
    task_ids: list[str] = Field(default_factory=list)  # the selection: fast_p's denominator


class BundleEnvironment(BaseModel):
    """Where the run was measured: the run's hardware fingerprint, with its main fields
    lifted out for readers (absent ones are null)."""

    model_config = ConfigDict(extra="forbid")

    cpu: str | None = None
    cores: int | None = None
    gpu: str | None = None
    driver: str | None = None
    cuda: str | None = None
    torch: str | None = None
    python: str | None = None
    toolchain: Any = None
    hardware: dict[str, Any] = Field(default_factory=dict)  # the full fingerprint
    hardware_key: str  # results.hardware_key(hardware)


class BundleAttempt(BaseModel):
    """One candidate: its source and the verdict claimed for it."""

    model_config = ConfigDict(extra="forbid")

    task_id: str
    round: int
    sample: int
    status: str
    speedup: float | None = None  # vs eager (the verdict's, repeated for readers)
    speedup_compile: float | None = None  # vs torch.compile
    source: str | None = None  # None: the agent's reply held no code
    source_sha256: str | None = None
    verdict: Verdict
    timings: dict[str, Any] = Field(default_factory=dict)  # harness-side durations
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    transcript: list[Any] = Field(default_factory=list)  # the agent's messages
    created_at: str


class Bundle(BaseModel):
    """A submission bundle (``bundle_version`` 1). The JSON Schema: bundle.schema.json."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["kerneltrials-submission"] = "kerneltrials-submission"
    bundle_version: Literal[1] = 1  # BUNDLE_VERSION
    created_at: str  # when the file was written (not hashed)
    content_sha256: str  # sha256 of everything but this field and created_at
    run: BundleRun
    environment: BundleEnvironment
    attempts: list[BundleAttempt]
    scores: dict[str, dict[str, Any]] = Field(default_factory=dict)  # baseline -> ScoreReport JSON

    def computed_sha256(self) -> str:
        """The hash of this bundle's content as it is now (compare with ``content_sha256``)."""
        data = self.model_dump(mode="json", exclude=_UNHASHED)
        text = json.dumps(data, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def has_valid_hash(self) -> bool:
        return self.computed_sha256() == self.content_sha256

    def rehashed(self) -> Bundle:
        """A copy whose ``content_sha256`` matches its content."""
        return self.model_copy(update={"content_sha256": self.computed_sha256()})


def bundle_json_schema() -> dict[str, Any]:
    """The bundle's JSON Schema (shipped as ``kerneltrials/leaderboard/bundle.schema.json``)."""
    schema = Bundle.model_json_schema()
    schema["$id"] = "kerneltrials/leaderboard/bundle.schema.json"
    return schema


def environment_of(hardware: dict[str, Any]) -> BundleEnvironment:
    """The bundle environment of a hardware fingerprint."""

    def text(key: str) -> str | None:
        value = hardware.get(key)
        return None if value is None else str(value)

    cores = hardware.get("cores")
    return BundleEnvironment(
        cpu=text("cpu"), cores=int(cores) if isinstance(cores, int) else None, gpu=text("gpu"),
        driver=text("driver"), cuda=text("cuda"), torch=text("torch"), python=text("python"),
        toolchain=hardware.get("toolchain"), hardware=dict(hardware),
        hardware_key=hardware_key(hardware),
    )  # fmt: skip


def _bundle_attempt(attempt: AttemptRecord) -> BundleAttempt:
    source_hash = hashlib.sha256(attempt.source.encode()).hexdigest() if attempt.source else None
    return BundleAttempt(
        task_id=attempt.task_id, round=attempt.round, sample=attempt.sample,
        status=attempt.status, speedup=attempt.speedup, speedup_compile=attempt.speedup_compile,
        source=attempt.source, source_sha256=source_hash,
        verdict=Verdict.model_validate(attempt.verdict), timings=attempt.timings,
        prompt_tokens=attempt.prompt_tokens, completion_tokens=attempt.completion_tokens,
        cost_usd=attempt.cost_usd, transcript=attempt.transcript, created_at=attempt.created_at,
    )  # fmt: skip


def _bundle_run(run: RunRecord) -> BundleRun:
    fields = {name: getattr(run, name) for name in BundleRun.model_fields}
    return BundleRun(**fields)


def bundle_from_store(store: ResultsStore, run: str | RunRecord) -> Bundle:
    """The bundle of a stored run with its *stored* scores only (nothing is computed).

    The leaderboard uses this to read store runs and to match verification records.
    """
    record = run if isinstance(run, RunRecord) else store.get_run(run)
    scores = {score.baseline: score.report for score in store.load_scores(record)}
    bundle = Bundle(
        created_at=_now(), content_sha256="", run=_bundle_run(record),
        environment=environment_of(record.hardware),
        attempts=[_bundle_attempt(a) for a in store.attempts_for_run(record)], scores=scores,
    )  # fmt: skip
    return bundle.rehashed()


def create_bundle(store: ResultsStore, run: str) -> Bundle:
    """The submission bundle of ``run``; a run without both stored scores is scored first
    and the scores are saved in the store (``save_run_scores``, as ``eval`` does when a
    run finishes), so the store and the bundle agree.

    Raises:
        UnknownRunError: no such run.
    """
    record = store.get_run(run)
    if {score.baseline for score in store.load_scores(record)} != {"eager", "compile"}:
        save_run_scores(store, record)
    return bundle_from_store(store, record)


def save_bundle(bundle: Bundle, path: str | os.PathLike[str]) -> Path:
    """Write ``bundle`` as JSON (gzip-compressed when the name ends in ``.gz``)."""
    target = Path(path)
    text = bundle.model_dump_json(indent=1)
    if target.name.endswith(".gz"):
        target.write_bytes(gzip.compress(text.encode(), mtime=0))
    else:
        target.write_text(text)
    return target


def load_bundle(path: str | os.PathLike[str]) -> Bundle:
    """Read a bundle file (plain or gzip JSON). The hash is NOT checked here:
    ``has_valid_hash()`` says whether the content was edited.

    Raises:
        BundleError: unreadable, not a kerneltrials bundle, or a newer bundle version.
    """
    source = Path(path)
    try:
        raw = source.read_bytes()
        data = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
    except (OSError, ValueError) as error:
        raise BundleError(f"cannot read bundle {source}: {error}") from error
    if not isinstance(data, dict) or data.get("kind") != BUNDLE_KIND:
        raise BundleError(
            f"{source} is not a kerneltrials submission bundle (no kind "
            f"{BUNDLE_KIND!r}): write one with `kerneltrials submit RUN`"
        )
    version = data.get("bundle_version")
    if isinstance(version, int) and version > BUNDLE_VERSION:
        raise BundleError(
            f"{source} has bundle_version {version}, newer than this "
            f"kerneltrials understands ({BUNDLE_VERSION}): upgrade kerneltrials"
        )
    try:
        return Bundle.model_validate(data)
    except ValidationError as error:
        raise BundleError(f"{source} is not a valid bundle: {error}") from error


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
