"""Collect what the site shows: runs from results stores and bundle files, their stored
scores, and the verification records that mark a run verified.

Every run becomes a :class:`Bundle` (a store run is read as the bundle ``submit`` would
write), so the pages are built from one representation. A run is verified only when a
store given to ``build`` holds a verification of exactly this content (run name and
content hash) whose newest record says every claim held; nothing inside a bundle counts.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from kerneltrials.leaderboard._bundle import Bundle, BundleError, bundle_from_store, load_bundle
from kerneltrials.results import VerificationRecord, open_store

BUNDLE_SUFFIXES = (".json", ".json.gz")


@dataclass(frozen=True)
class SiteRun:
    """One run as the site shows it."""

    bundle: Bundle
    origin: str  # "store:<path>" or "bundle:<file name>"
    slug: str  # file-name-safe, unique within the site
    verification: VerificationRecord | None  # the newest matching record that holds

    @property
    def name(self) -> str:
        return self.bundle.run.name

    @property
    def is_verified(self) -> bool:
        return self.verification is not None


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
) -> SiteData:
    """Read every run of the stores and every bundle of ``bundles_dir``.

    A bundle whose run (same name and content hash) is already in a store is shown once.
    A bundle with a wrong content hash is skipped (and listed in ``skipped``).

    Raises:
        StoreError: a store path that does not exist or is not a store.
    """
    file_bundles, skipped = _read_bundle_files(bundles_dir)
    bundles: list[tuple[Bundle, str]] = []
    verifications: list[VerificationRecord] = []
    for path in db_paths:
        with open_store(path, create=False) as store:
            records = store.list_runs()
            bundles.extend((bundle_from_store(store, r), f"store:{path}") for r in records)
            names = {r.name for r in records} | {b.run.name for b, _ in file_bundles}
            for name in sorted(names):
                verifications.extend(store.verifications_for(name))
    seen = {(b.run.name, b.content_sha256) for b, _ in bundles}
    for bundle, origin in file_bundles:
        if (bundle.run.name, bundle.content_sha256) not in seen:
            seen.add((bundle.run.name, bundle.content_sha256))
            bundles.append((bundle, origin))
    runs = tuple(
        SiteRun(bundle, origin, slugify(f"{bundle.run.name}@{bundle.content_sha256[:12]}"),
                verification_of(bundle, verifications))
        for bundle, origin in bundles
    )  # fmt: skip
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


def verification_of(
    bundle: Bundle, records: Iterable[VerificationRecord]
) -> VerificationRecord | None:
    """The newest verification of exactly this content, if it held (else None)."""
    matching = [r for r in records
                if r.run_name == bundle.run.name and r.bundle_sha256 == bundle.content_sha256]  # fmt: skip
    if not matching:
        return None
    newest = max(matching, key=lambda r: (r.verified_at, r.id))
    return newest if newest.holds else None
