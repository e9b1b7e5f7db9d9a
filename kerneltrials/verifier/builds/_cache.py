"""A content-addressed, multi-process store of build outputs (libraries, PCHs, objects).

Layout under the store's root::

    <key>/             a published entry: its files, nothing else
    .index/<key>.json  the entry's digest record (names, sizes, sha256), outside every
                       entry; its mtime is the entry's last use (least-recently-used eviction)
    .staging/<key>.*   entries being published (renamed into place when complete)
    .locks/<key>.lock  one publisher per key; fcntl.flock, so the kernel drops the lock
                       when its holder dies (a SIGKILLed publisher blocks nobody)
    .trash/            entries being deleted (renamed there first: readers never see
                       a half-deleted entry)

Only the trusted parent writes here: sandboxed jobs mount nothing of the store writable
(a compile job writes into its own output directory, which the parent hashes and
publishes). Every lookup checks the entry against its digest record: a file that was
changed, added or removed since publication (by anyone) makes the entry a miss, and it
is removed and rebuilt. Eviction counts every file under the root and removes anything
that is not a recorded entry. See docs/design/builds.md.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import stat
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

INDEX_DIR = ".index"
INDEX_VERSION = 2
DEFAULT_MAX_BYTES = 5 * 1024**3
LOCK_TIMEOUT_S = 1800.0  # longer than any build: a live holder is never overtaken
_SERVICE_DIRS = (".staging", ".locks", ".trash", INDEX_DIR)


def resolve_max_bytes(variable: str = "KERNELTRIALS_CACHE_MAX_BYTES") -> int:
    """The size bound from the environment, or 5 GiB."""
    value = os.environ.get(variable, "").strip()
    return int(value) if value else DEFAULT_MAX_BYTES


def sha256_file(path: Path) -> str:
    """The sha256 of a regular file (symbolic links are refused: ``O_NOFOLLOW``)."""
    digest = hashlib.sha256()
    descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(descriptor, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def tree_bytes(path: Path) -> int:
    """Bytes of every file under ``path`` (links counted, never followed)."""
    try:
        info = path.lstat()
    except OSError:
        return 0
    if not stat.S_ISDIR(info.st_mode):
        return info.st_size
    total = 0
    for directory, dirs, files in os.walk(path):
        for name in dirs + files:
            with contextlib.suppress(OSError):
                entry = os.lstat(os.path.join(directory, name))
                total += 0 if stat.S_ISDIR(entry.st_mode) else entry.st_size
    return total


def _listing(entry: Path) -> dict[str, Path]:
    """Every non-directory under ``entry`` by relative name (links included, unfollowed)."""
    found = {}
    for directory, dirs, files in os.walk(entry):
        for name in files + [name for name in dirs if os.path.islink(os.path.join(directory, name))]:
            path = Path(directory, name)
            found[path.relative_to(entry).as_posix()] = path
    return found


def _remove_path(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            path.unlink()


class BuildCache:
    """One store directory; safe to share between processes on one machine.

    ``nested`` names sub-directories that are other stores (the toolchain store inside
    the library store): eviction leaves them to their own store.
    """

    def __init__(self, root: Path, max_bytes: int | None = None, verify_hash: bool = True,
                 nested: tuple[str, ...] = ()) -> None:
        self.root = Path(root)
        self.max_bytes = resolve_max_bytes() if max_bytes is None else max_bytes
        self.verify_hash = verify_hash  # False only for trusted, in-process benchmarks
        self.nested = nested
        for sub in _SERVICE_DIRS:
            (self.root / sub).mkdir(parents=True, exist_ok=True)

    def entry_path(self, key: str) -> Path:
        return self.root / key

    def index_path(self, key: str) -> Path:
        """The entry's digest record (outside the entry)."""
        return self.root / INDEX_DIR / f"{key}.json"

    def recorded(self, key: str) -> dict[str, dict[str, object]] | None:
        """The recorded files of ``key`` (name -> size_bytes, sha256), or None."""
        try:
            record = json.loads(self.index_path(key).read_text())
            files = record["files"]
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if record.get("version") != INDEX_VERSION or not isinstance(files, dict):
            return None
        return files

    def lookup(self, key: str) -> Path | None:
        """The entry's directory if present and intact (and mark it used), else None.

        An entry that does not match its digest record (a file changed, added or
        removed) is removed: the caller rebuilds.
        """
        entry = self.entry_path(key)
        if not self.index_path(key).is_file() or not entry.is_dir():
            return None
        if not self.is_intact(key):
            self.remove(key)
            return None
        with contextlib.suppress(OSError):
            os.utime(self.index_path(key))  # last use, for LRU
        return entry

    def lookup_unhashed(self, key: str) -> tuple[Path, dict[str, str]] | None:
        """An entry holding exactly its recorded files at their recorded sizes (marked
        used), with the recorded digests for whoever uses it to check: for an entry too
        large to hash at every lookup and rarely used (g++'s PCH). Nothing is removed."""
        entry = self.entry_path(key)
        recorded = self.recorded(key)
        if recorded is None or not entry.is_dir() or not self.is_intact(key, hashes=False):
            return None
        with contextlib.suppress(OSError):
            os.utime(self.index_path(key))  # last use, for LRU
        try:
            return entry, {name: str(info["sha256"]) for name, info in recorded.items()}
        except (KeyError, TypeError):
            return None

    def is_intact(self, key: str, hashes: bool = True) -> bool:
        """The entry holds exactly the recorded files, with their sizes and (``hashes``,
        unless the store skips them) digests."""
        recorded, entry = self.recorded(key), self.entry_path(key)
        if recorded is None:
            return False
        present = _listing(entry)
        if set(present) != set(recorded):
            return False
        try:
            for name, info in recorded.items():
                path = present[name]
                if not path.is_file() or path.is_symlink():
                    return False
                if path.stat().st_size != info["size_bytes"]:
                    return False
                if hashes and self.verify_hash and sha256_file(path) != info["sha256"]:
                    return False
        except (OSError, KeyError, TypeError):
            return False
        return True

    def copy_verified(self, key: str, name: str, destination: Path) -> bool:
        """Copy file ``name`` of ``key`` to ``destination``, hashing the bytes copied; True
        when they match the digest record (on a mismatch the copy is deleted)."""
        info = (self.recorded(key) or {}).get(name)
        if not isinstance(info, dict):
            return False
        digest = hashlib.sha256()
        try:
            descriptor = os.open(self.entry_path(key) / name, os.O_RDONLY | os.O_NOFOLLOW)
            with os.fdopen(descriptor, "rb") as source, destination.open("wb") as target:
                for block in iter(lambda: source.read(1 << 20), b""):
                    digest.update(block)
                    target.write(block)
        except OSError:
            destination.unlink(missing_ok=True)
            return False
        if digest.hexdigest() != info.get("sha256"):
            destination.unlink(missing_ok=True)
            return False
        destination.chmod(0o644)  # read by a job's unprivileged user
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
        it is given (trusted code only: what it leaves there is published under ``key``);
        an exception from it leaves nothing behind and propagates.
        """
        entry = self.lookup(key)
        if entry is not None:
            return entry, True
        with self.lock(key):
            hit = self.build_locked(key, build)
        self.evict(keep=key)
        return self.entry_path(key), hit

    def build_locked(self, key: str, build: Callable[[Path], None]) -> bool:
        """:meth:`get_or_build` for a caller that holds ``key``'s lock; returns hit."""
        if self.lookup(key) is not None:  # a concurrent builder may have finished meanwhile
            return True
        self._clear_stale_staging(key)
        staging = self.root / ".staging" / f"{key}.{os.getpid()}.{uuid.uuid4().hex[:8]}"
        staging.mkdir()
        try:
            build(staging)
            self._publish(staging, key)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return False

    def _clear_stale_staging(self, key: str) -> None:
        # Called under the key's lock: any staging dir for the key is a dead builder's.
        for stale in (self.root / ".staging").glob(f"{key}.*"):
            shutil.rmtree(stale, ignore_errors=True)

    def _publish(self, staging: Path, key: str) -> None:
        """Record the digests of what is in ``staging`` (parent-written), then rename it in."""
        files = {}
        for name, path in sorted(_listing(staging).items()):
            if path.is_symlink() or not path.is_file():
                raise ValueError(f"refusing to publish {name!r}: not a regular file")
            files[name] = {"size_bytes": path.stat().st_size, "sha256": sha256_file(path)}
            path.chmod(0o644)
        record = {"version": INDEX_VERSION, "files": files, "created": time.time()}
        if self.entry_path(key).exists() or self.index_path(key).exists():
            self.remove(key)  # a leftover that failed verification
        temporary = self.root / INDEX_DIR / f".{key}.{uuid.uuid4().hex[:8]}.tmp"
        temporary.write_text(json.dumps(record, indent=1))
        os.replace(temporary, self.index_path(key))
        staging.chmod(0o755)
        os.rename(staging, self.entry_path(key))

    def remove(self, key: str) -> None:
        """Delete an entry and its record: the record goes first, then the entry is
        renamed away, so no reader sees half an entry."""
        with contextlib.suppress(OSError):
            self.index_path(key).unlink()
        trash = self.root / ".trash" / f"{key}.{uuid.uuid4().hex[:8]}"
        try:
            os.rename(self.entry_path(key), trash)
        except OSError:
            return
        _remove_path(trash)

    def entries(self) -> list[tuple[float, int, str]]:
        """(last use, size in bytes, key) for every recorded entry."""
        found = []
        for record in (self.root / INDEX_DIR).glob("*.json"):
            key = record.name[: -len(".json")]
            entry = self.entry_path(key)
            try:
                last_use = record.stat().st_mtime
            except OSError:
                continue  # removed while we looked
            if entry.is_dir() and not entry.is_symlink():
                found.append((last_use, tree_bytes(entry) + tree_bytes(record), key))
        return found

    def _sweep_leftovers(self) -> None:
        """Remove what killed processes left (trash, staging dirs whose key is unlocked)
        and everything else that is not a recorded entry: stray files and directories,
        and records without an entry. Both checked under the key's lock (skipped while a
        publisher holds it)."""
        for stale in (self.root / ".trash").iterdir():
            _remove_path(stale)
        for staging in (self.root / ".staging").iterdir():
            key = staging.name.split(".")[0]
            with contextlib.suppress(TimeoutError), self.lock(key, timeout_s=0.0):
                self._clear_stale_staging(key)  # we hold the lock: no live builder owns it
        for path in self.root.iterdir():
            if path.name in _SERVICE_DIRS or path.name in self.nested:
                continue
            if path.is_dir() and not path.is_symlink() and self.index_path(path.name).is_file():
                continue
            with contextlib.suppress(TimeoutError), self.lock(path.name, timeout_s=0.0):
                if not self.index_path(path.name).is_file():
                    self.remove(path.name)
                    _remove_path(path)
        for record in (self.root / INDEX_DIR).iterdir():
            is_record = record.name.endswith(".json")  # else a publisher's temporary
            key = record.name[: -len(".json")] if is_record else record.name[1:].split(".")[0]
            if is_record and self.entry_path(key).is_dir():
                continue
            with contextlib.suppress(TimeoutError), self.lock(key, timeout_s=0.0):
                if not (is_record and self.entry_path(key).is_dir()):
                    _remove_path(record)

    def total_bytes(self) -> int:
        """Every file under the root but the nested stores (records, locks, staging too)."""
        return sum(tree_bytes(path) for path in self.root.iterdir() if path.name not in self.nested)

    def evict(self, keep: str | None = None) -> list[str]:
        """Remove strays, then least-recently-used entries until the store fits ``max_bytes``."""
        self._sweep_leftovers()
        total = self.total_bytes()
        removed = []
        for _, size, key in sorted(self.entries()):
            if total <= self.max_bytes:
                break
            if key == keep:
                continue
            self.remove(key)
            removed.append(key)
            total -= size
        return removed
