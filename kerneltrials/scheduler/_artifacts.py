"""Moving build artifacts between nodes: a cache entry travels as a tar archive.

The build job packs the entries it produced; the run job installs the ones its node's
cache lacks (through the cache's own locked, atomic publication) before it runs, so the
run stage finds a cache hit wherever Ray placed it.
"""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

from kerneltrials.verifier._buildcache import MANIFEST, BuildCache
from kerneltrials.verifier._compiler import cache_root


def pack_entries(keys: list[str], root: Path | None = None) -> dict[str, bytes]:
    """Each key's cache entry as a gzip'd tar (keys missing here are skipped)."""
    cache = BuildCache(root or cache_root())
    packed = {}
    for key in keys:
        entry = cache.lookup(key)
        if entry is None:
            continue
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
            for path in sorted(entry.rglob("*")):
                # The receiving cache writes its own manifest when it publishes.
                if path.is_file() and path.name != MANIFEST:
                    archive.add(path, arcname=str(path.relative_to(entry)))
        packed[key] = buffer.getvalue()
    return packed


def install_entries(packed: dict[str, bytes], root: Path | None = None) -> list[str]:
    """Install the entries this node lacks; returns the keys installed."""
    cache = BuildCache(root or cache_root())
    installed = []
    for key, blob in packed.items():
        if cache.lookup(key) is not None:
            continue

        def extract(staging: Path, blob: bytes = blob) -> None:
            with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as archive:
                archive.extractall(staging, filter="data")

        cache.get_or_build(key, extract)
        installed.append(key)
    return installed
