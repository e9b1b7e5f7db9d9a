"""Moving build artifacts between nodes: a cache entry travels as a tar archive.

The build job packs the entries it produced, each file with the sha256 its node's digest
record holds; the run job installs the ones its node's cache lacks before it runs, so the
run stage finds a cache hit wherever Ray placed it. The receiving parent re-hashes every
extracted file, drops an entry whose files do not match the digests sent with it (or that
holds anything else), and publishes the rest through its cache's own locked, atomic
publication, which records fresh digests (docs/design/builds.md).
"""

from __future__ import annotations

import functools
import io
import json
import tarfile
from pathlib import Path

from kerneltrials.verifier.builds._cache import BuildCache, sha256_file
from kerneltrials.verifier.builds._compiler import library_store

_DIGESTS = ".digests.json"  # inside the archive only: name -> sha256 on the sending node


def _store(root: Path | None) -> BuildCache:
    return BuildCache(root) if root is not None else library_store()


def pack_entries(keys: list[str], root: Path | None = None) -> dict[str, bytes]:
    """Each key's cache entry as a gzip'd tar (keys missing or not intact here are skipped)."""
    cache = _store(root)
    packed = {}
    for key in keys:
        entry, recorded = cache.lookup(key), cache.recorded(key)
        if entry is None or recorded is None:
            continue
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
            for name in sorted(recorded):
                archive.add(entry / name, arcname=name)
            digests = json.dumps({name: info["sha256"] for name, info in recorded.items()}).encode()
            member = tarfile.TarInfo(_DIGESTS)
            member.size = len(digests)
            archive.addfile(member, io.BytesIO(digests))
        packed[key] = buffer.getvalue()
    return packed


def _extract_checked(blob: bytes, staging: Path) -> None:
    """Extract one entry; raises ValueError unless its files are exactly the ones listed,
    each matching the digest sent with it."""
    with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as archive:
        archive.extractall(staging, filter="data")
    digests = json.loads((staging / _DIGESTS).read_text())
    (staging / _DIGESTS).unlink()
    present = {path.relative_to(staging).as_posix() for path in staging.rglob("*")
               if not path.is_dir()}
    if not isinstance(digests, dict) or present != set(digests):
        raise ValueError("the archive's files are not the ones its digests list")
    for name, digest in digests.items():
        if sha256_file(staging / name) != digest:
            raise ValueError(f"{name} does not match its digest")


def install_entries(packed: dict[str, bytes], root: Path | None = None) -> list[str]:
    """Install the entries this node lacks; returns the keys installed (an entry that
    fails its digests is skipped: the run stage then builds it here)."""
    cache = _store(root)
    installed = []
    for key, blob in packed.items():
        if cache.lookup(key) is not None:
            continue
        try:
            cache.get_or_build(key, functools.partial(_extract_checked, blob))
        except (ValueError, OSError, tarfile.TarError):
            continue
        installed.append(key)
    return installed
