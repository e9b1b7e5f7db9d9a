"""Which built extensions a candidate source asked for, so a repeat skips the build worker.

After a successful build stage the parent records, per (candidate source, backend,
toolchain), the artifacts it produced. A later verification of the same source finds
them here and, when every library is still intact in the cache, goes straight to the run
stage (saving a worker start and an import). The index lives beside the build cache, in
a directory no sandboxed worker can write, so a candidate cannot plant an entry for
another candidate's source.

A source whose compiler reported errors in its own code is recorded too, with the
reasons of its verdict: the same source again (an agent resubmitting it, a resumed run)
gets its ``compile_error`` at once. Only a failure the compiler pinned on the source is
recorded; one of the machine's (a compiler killed, a full disk) is tried again.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import replace
from pathlib import Path

from kerneltrials.verifier.builds._artifact import BuiltArtifact
from kerneltrials.verifier.builds._compiler import cache_root, library_store, toolchain_fingerprint
from kerneltrials.verifier.builds._jobs import library_digest

INDEX_VERSION = 2  # 2: each artifact carries its library's sha256


def index_dir() -> Path:
    return cache_root().parent / "source-index"


def _key(source: str, backend: str) -> str:
    payload = json.dumps({"v": INDEX_VERSION, "source": source, "backend": backend,
                          "toolchain": toolchain_fingerprint(backend)}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


def lookup_artifacts(source: str, backend: str) -> list[BuiltArtifact] | None:
    """The recorded artifacts when every one is still intact in the cache (its digests
    match the record the parent wrote when it published it, and the digest recorded here),
    else None."""
    path = index_dir() / f"{_key(source, backend)}.json"
    try:
        items = [BuiltArtifact.from_dict(item) for item in json.loads(path.read_text())["artifacts"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    cache = library_store()
    found = []
    for item in items:
        entry = cache.lookup(item.artifact.key)  # checks the entry's digests
        library = entry / item.library_name if entry else None
        if library is None or not library.is_file() or library_digest(item.artifact) != item.sha256:
            return None
        artifact = replace(item.artifact, library_path=str(library), cache_hit=True, build_s=0.0)
        found.append(replace(item, artifact=artifact))
    return found


def record_artifacts(source: str, backend: str, items: list[BuiltArtifact]) -> None:
    """Remember ``items`` for ``source`` (atomically: a reader never sees half a file)."""
    directory = index_dir()
    directory.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=directory, suffix=".tmp")
    with os.fdopen(handle, "w") as file:
        json.dump({"artifacts": [item.to_dict() for item in items]}, file)
    os.replace(temporary, directory / f"{_key(source, backend)}.json")


def _failure_path(source: str, backend: str) -> Path:
    return index_dir() / f"{_key(source, backend)}.compile-error.json"


def lookup_compile_failure(source: str, backend: str) -> list[str] | None:
    """The reasons recorded when this exact source failed to compile with this
    toolchain, or None."""
    try:
        reasons = json.loads(_failure_path(source, backend).read_text())["reasons"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return [str(reason) for reason in reasons] if isinstance(reasons, list) else None


def record_compile_failure(source: str, backend: str, reasons: list[str]) -> None:
    """Remember that ``source`` does not compile, with its verdict's reasons."""
    directory = index_dir()
    directory.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=directory, suffix=".tmp")
    with os.fdopen(handle, "w") as file:
        json.dump({"reasons": reasons}, file)
    os.replace(temporary, _failure_path(source, backend))
