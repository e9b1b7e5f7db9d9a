"""Collect what the site shows: runs from results stores and bundle files, their stored
scores, and the verification records that mark a run verified.

Every run becomes a :class:`Bundle` (a store run is read as the bundle ``submit`` would
write), so the pages are built from one representation. A run is verified only when a
store given to ``build`` holds a verification of exactly this content (run name and
content hash) whose newest record, written by this version of ``verify``, says every
claim was re-measured there and held; nothing inside a bundle counts. A verified run is
shown with the re-measured figures of that record, never the claimed ones; every other
run shows its claims, marked unverified / partially verified / verification failed.
The re-measured scores are the ones the results store computed and stored with the
record; nothing here scores. See docs/design/leaderboard.md, "Verified".
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kerneltrials.leaderboard._bundle import Bundle, BundleError, bundle_from_store, load_bundle
from kerneltrials.leaderboard._verify import VERIFICATION_VERSION
from kerneltrials.results import VerificationRecord, open_store

BUNDLE_SUFFIXES = (".json", ".json.gz")
# what the site says about a run's claims (SiteRun.state)
VERIFIED = "verified"  # every claim re-measured by a maintainer and held
PARTIALLY_VERIFIED = "partially verified"  # nothing failed, but not every claim re-measured
VERIFICATION_FAILED = "verification failed"  # some claim did not hold
UNVERIFIED = "unverified"  # no usable verification record of this content


@dataclass(frozen=True)
class SiteRun:
    """One run as the site shows it."""

    bundle: Bundle  # what the pages show: for a verified run, the re-measured figures
    origin: str  # "store:<path>" or "bundle:<file name>"
    slug: str  # file-name-safe, unique within the site
    verification: VerificationRecord | None = None  # the newest record of exactly this content
    state: str = UNVERIFIED
    submitted: Bundle | None = None  # the claims, when ``bundle`` shows re-measured figures

    @property
    def name(self) -> str:
        return self.bundle.run.name

    @property
    def is_verified(self) -> bool:
        """Every claim re-measured and held: ranked with the verified runs."""
        return self.state == VERIFIED

    @property
    def claims(self) -> list[dict[str, Any]]:
        """The verification's per-attempt outcomes (claimed, re-measured, result, notes);
        empty without a record this version understands."""
        outcome = self.verification.outcome if self.verification else {}
        if outcome.get("verification_version") != VERIFICATION_VERSION:
            return []
        return [a for a in outcome.get("attempts", []) if isinstance(a, dict)]


@dataclass(frozen=True)
class SiteData:
    """Everything one build reads; ``skipped`` lists unreadable bundles and why."""

    runs: tuple[SiteRun, ...]
    skipped: tuple[str, ...] = ()


def slugify(text: str) -> str:
    """A file-name-safe, collision-free name: readable part + short hash of the original."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._")[:60] or "x"
    return f"{readable}-{hashlib.sha256(text.encode()).hexdigest()[:8]}"


def find_bundle_files(directory: str | os.PathLike[str]) -> list[Path]:
    """Bundle files (``*.json``, ``*.json.gz``) under ``directory``, sorted."""
    root = Path(directory)
    return sorted(p for p in root.rglob("*") if p.is_file() and p.name.endswith(BUNDLE_SUFFIXES))


def collect_site(
    db_paths: Iterable[str | os.PathLike[str]] = (),
    bundles_dir: str | os.PathLike[str] | None = None,
    exclude: Iterable[str] = (),
) -> SiteData:
    """Read every run of the stores and every bundle of ``bundles_dir``.

    A bundle whose run (same name and content hash) is already in a store is shown once.
    A bundle with a wrong content hash is skipped (and listed in ``skipped``). Runs named
    in ``exclude`` and store runs marked hidden (``kerneltrials runs hide``: test runs) are
    left out; verification records are still read for every name.

    Raises:
        StoreError: a store path that does not exist or is not a store.
    """
    left_out = set(exclude)
    file_bundles, skipped = _read_bundle_files(bundles_dir)
    file_bundles = [(b, origin) for b, origin in file_bundles if b.run.name not in left_out]
    bundles: list[tuple[Bundle, str]] = []
    verifications: list[VerificationRecord] = []
    for path in db_paths:
        with open_store(path, create=False) as store:
            records = [r for r in store.list_runs() if not r.hidden and r.name not in left_out]
            bundles.extend((bundle_from_store(store, r), f"store:{path}") for r in records)
            names = {r.name for r in records} | {b.run.name for b, _ in file_bundles}
            for name in sorted(names):
                verifications.extend(store.verifications_for(name))
    seen = {(b.run.name, b.content_sha256) for b, _ in bundles}
    for bundle, origin in file_bundles:
        if (bundle.run.name, bundle.content_sha256) not in seen:
            seen.add((bundle.run.name, bundle.content_sha256))
            bundles.append((bundle, origin))
    runs = tuple(site_run(bundle, origin, verifications) for bundle, origin in bundles)
    return SiteData(runs, tuple(skipped))


def _read_bundle_files(
    directory: str | os.PathLike[str] | None,
) -> tuple[list[tuple[Bundle, str]], list[str]]:
    """The readable bundles with a valid hash, and a line per skipped file."""
    bundles: list[tuple[Bundle, str]] = []
    skipped: list[str] = []
    for file in find_bundle_files(directory) if directory else []:
        try:
            bundle = load_bundle(file)
        except BundleError as error:
            skipped.append(str(error))
            continue
        if bundle.has_valid_hash():
            bundles.append((bundle, f"bundle:{file.name}"))
        else:
            skipped.append(f"{file}: content hash mismatch (edited after it was written)")
    return bundles, skipped


def site_run(bundle: Bundle, origin: str, records: Iterable[VerificationRecord]) -> SiteRun:
    """The run with its verification state (and re-measured figures when verified)."""
    slug = slugify(f"{bundle.run.name}@{bundle.content_sha256[:12]}")
    record = verification_of(bundle, records)
    state = verification_state(record)
    shown = remeasured_bundle(bundle, record) if record and state == VERIFIED else None
    if state == VERIFIED and shown is None:
        state = UNVERIFIED  # the record does not line up with these attempts
    return SiteRun(shown or bundle, origin, slug, record, state, bundle if shown else None)


def verification_of(
    bundle: Bundle, records: Iterable[VerificationRecord]
) -> VerificationRecord | None:
    """The newest verification of exactly this content (None: never verified)."""
    matching = [r for r in records
                if r.run_name == bundle.run.name and r.bundle_sha256 == bundle.content_sha256]  # fmt: skip
    return max(matching, key=lambda r: (r.verified_at, r.id)) if matching else None


def verification_state(record: VerificationRecord | None) -> str:
    """What a record says of the run. A record from a ``verify`` that did not re-measure
    every speedup (no ``verification_version``, or another one) counts as none."""
    outcome = record.outcome if record else {}
    if record is None or outcome.get("verification_version") != VERIFICATION_VERSION:
        return UNVERIFIED
    if record.holds and outcome.get("state") == "verified" and outcome.get("fully_remeasured"):
        return VERIFIED
    if outcome.get("state") == "partially_verified":
        return PARTIALLY_VERIFIED
    return VERIFICATION_FAILED


def remeasured_bundle(bundle: Bundle, record: VerificationRecord) -> Bundle | None:
    """``bundle`` with the record's re-measured statuses and speedups, and the re-measured
    scores the store keeps with the record, in place of the claimed ones (the content hash
    stays the submitted one); None when the record's attempts do not line up with the
    bundle's or no re-measured scores are stored."""
    claims, scores = record.outcome.get("attempts"), record.scores
    if not isinstance(claims, list) or len(claims) != len(bundle.attempts) or not scores:
        return None
    attempts = []
    for attempt, claim in zip(bundle.attempts, claims, strict=True):
        key = (attempt.task_id, attempt.round, attempt.sample)
        if not isinstance(claim, dict) or (claim.get("task_id"), claim.get("round"),
                                           claim.get("sample")) != key:  # fmt: skip
            return None
        attempts.append(attempt.model_copy(update={
            "status": claim.get("status_measured") or attempt.status,
            "speedup": claim.get("speedup_measured"),
            "speedup_compile": claim.get("speedup_compile_measured"),
        }))  # fmt: skip
    return bundle.model_copy(update={"attempts": attempts, "scores": dict(scores)})
