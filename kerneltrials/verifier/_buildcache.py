"""A content-addressed, multi-process store of build outputs (libraries, PCHs, objects).

Layout under the store's root::

    <key>/            a published entry: its files plus manifest.json (names, sizes, sha256)
    .staging/<key>.*  entries being built (renamed into place when complete)
    .locks/<key>.lock one builder per key; fcntl.flock, so the kernel drops the lock
                      when its holder dies (a SIGKILLed builder blocks nobody)
    .trash/           entries being deleted (renamed there first: readers never see
                      a half-deleted entry)

Readers never take a lock: an entry appears by one atomic ``rename`` after its
manifest is written, and a lookup verifies the manifest (size, and sha256 where asked),
so a truncated or modified file is detected, evicted and rebuilt. The manifest's mtime
is the entry's last use, for least-recently-used eviction down to ``max_bytes``.
See docs/design/builds.md.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

MANIFEST = "manifest.json"
MANIFEST_VERSION = 1
DEFAULT_MAX_BYTES = 5 * 1024**3
LOCK_TIMEOUT_S = 1800.0  # longer than any build: a live holder is never overtaken


def resolve_max_bytes(variable: str = "KERNELTRIALS_CACHE_MAX_BYTES") -> int:
    """The size bound from the environment, or 5 GiB."""
    value = os.environ.get(variable, "").strip()
    return int(value) if value else DEFAULT_MAX_BYTES


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class BuildCache:
    """One store directory; safe to share between processes on one machine."""

    def __init__(self, root: Path, max_bytes: int | None = None, verify_hash: bool = True):
        self.root = Path(root)
        self.max_bytes = resolve_max_bytes() if max_bytes is None else max_bytes
        self.verify_hash = verify_hash  # False for large PCHs: size check only
        for sub in (".staging", ".locks", ".trash"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)

    def entry_path(self, key: str) -> Path:
        return self.root / key

    def lookup(self, key: str) -> Path | None:
        """The entry's directory if present and intact (and mark it used), else None."""
        entry = self.entry_path(key)
        manifest = entry / MANIFEST
        if not manifest.is_file():
            return None
        if not self.is_intact(entry):
            self.remove(key)  # corrupted: drop it, the caller rebuilds
            return None
        with contextlib.suppress(OSError):
            os.utime(manifest)  # last use, for LRU
        return entry

    def is_intact(self, entry: Path) -> bool:
        """Every file the manifest lists exists with its recorded size (and hash)."""
        try:
            recorded = json.loads((entry / MANIFEST).read_text())
            for name, info in recorded["files"].items():
                path = entry / name
                if path.stat().st_size != info["size_bytes"]:
                    return False
                if self.verify_hash and _sha256(path) != info["sha256"]:
                    return False
        except (OSError, ValueError, KeyError, TypeError):
            return False
        return True

    @contextlib.contextmanager
    def lock(self, key: str, timeout_s: float = LOCK_TIMEOUT_S) -> Iterator[None]:
        """Exclusive per-key lock; released by the kernel if the holder dies."""
        path = self.root / ".locks" / f"{key}.lock"
        with path.open("a+") as handle:
            deadline = time.monotonic() + timeout_s
            while True:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise TimeoutError(f"build lock {path} held for over {timeout_s:.0f} s") from None
                    time.sleep(0.05)
            handle.seek(0)
            handle.truncate()
            handle.write(f"{os.getpid()}\n")  # who holds it, for a human reading the dir
            handle.flush()
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def get_or_build(self, key: str, build: Callable[[Path], None]) -> tuple[Path, bool]:
        """The entry for ``key``, building it with ``build(staging_dir)`` on a miss.

        Returns (entry directory, hit). ``build`` writes its files into the directory
        it is given; an exception from it leaves nothing behind and propagates.
        """
        entry = self.lookup(key)
        if entry is not None:
            return entry, True
        with self.lock(key):
            entry = self.lookup(key)  # a concurrent builder may have finished meanwhile
            if entry is not None:
                return entry, True
            self._clear_stale_staging(key)
            staging = self.root / ".staging" / f"{key}.{os.getpid()}.{uuid.uuid4().hex[:8]}"
            staging.mkdir()
            try:
                build(staging)
                self._write_manifest(staging)
                self._publish(staging, key)
            finally:
                shutil.rmtree(staging, ignore_errors=True)
        self.evict(keep=key)
        return self.entry_path(key), False

    def _clear_stale_staging(self, key: str) -> None:
        # Called under the key's lock: any staging dir for the key is a dead builder's.
        for stale in (self.root / ".staging").glob(f"{key}.*"):
            shutil.rmtree(stale, ignore_errors=True)

    def _write_manifest(self, staging: Path) -> None:
        files = {}
        for path in sorted(staging.rglob("*")):
            if path.is_file():
                name = path.relative_to(staging).as_posix()
                files[name] = {"size_bytes": path.stat().st_size, "sha256": _sha256(path)}
        payload = {"version": MANIFEST_VERSION, "files": files, "created": time.time()}
        (staging / MANIFEST).write_text(json.dumps(payload, indent=1))

    def _publish(self, staging: Path, key: str) -> None:
        entry = self.entry_path(key)
        if entry.exists():  # a corrupt leftover without a valid manifest
            self.remove(key)
        os.rename(staging, entry)

    def remove(self, key: str) -> None:
        """Delete an entry: rename it away first, so no reader sees it half-deleted."""
        entry = self.entry_path(key)
        trash = self.root / ".trash" / f"{key}.{uuid.uuid4().hex[:8]}"
        try:
            os.rename(entry, trash)
        except OSError:
            return
        shutil.rmtree(trash, ignore_errors=True)

    def entries(self) -> list[tuple[float, int, str]]:
        """(last use, size in bytes, key) for every published entry."""
        found = []
        for entry in self.root.iterdir():
            manifest = entry / MANIFEST
            if entry.name.startswith(".") or not manifest.is_file():
                continue
            try:
                size = sum(f.stat().st_size for f in entry.iterdir() if f.is_file())
                found.append((manifest.stat().st_mtime, size, entry.name))
            except OSError:
                continue  # removed while we looked
        return found

    def _sweep_leftovers(self) -> None:
        """Remove what killed processes left: trash, and staging dirs whose key is unlocked."""
        for stale in (self.root / ".trash").iterdir():
            shutil.rmtree(stale, ignore_errors=True)
        for staging in (self.root / ".staging").iterdir():
            key = staging.name.split(".")[0]
            with contextlib.suppress(TimeoutError), self.lock(key, timeout_s=0.0):
                self._clear_stale_staging(key)  # we hold the lock: no live builder owns it

    def evict(self, keep: str | None = None) -> list[str]:
        """Remove least-recently-used entries until the store fits ``max_bytes``."""
        self._sweep_leftovers()
        entries = sorted(self.entries())
        total = sum(size for _, size, _ in entries)
        removed = []
        for _, size, key in entries:
            if total <= self.max_bytes:
                break
            if key == keep:
                continue
            self.remove(key)
            removed.append(key)
            total -= size
        return removed
