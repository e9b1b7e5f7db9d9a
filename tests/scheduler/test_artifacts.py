"""Build artifacts travel between nodes as packed cache entries, with their digests; the
receiving side re-hashes and publishes them itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from kerneltrials.scheduler._artifacts import install_entries, pack_entries
from kerneltrials.verifier.builds._cache import BuildCache

pytestmark = pytest.mark.timeout(60)


def _publish(root: Path, key: str, payload: bytes) -> None:
    def build(staging: Path) -> None:
        (staging / "kt_lib.so").write_bytes(payload)
        (staging / "source.cpp").write_text("// kernel")

    BuildCache(root).get_or_build(key, build)


def test_an_entry_packed_on_one_node_installs_intact_on_another(tmp_path: Path) -> None:
    node_a, node_b = tmp_path / "a", tmp_path / "b"
    _publish(node_a, "k" * 32, b"\x7fELF library bytes")
    packed = pack_entries(["k" * 32, "missing" * 4], root=node_a)
    assert list(packed) == ["k" * 32]
    assert install_entries(packed, root=node_b) == ["k" * 32]
    entry = BuildCache(node_b).lookup("k" * 32)
    assert entry is not None and (entry / "kt_lib.so").read_bytes() == b"\x7fELF library bytes"
    assert install_entries(packed, root=node_b) == []  # already there: nothing to do


def test_an_entry_altered_in_transit_is_not_installed(tmp_path: Path) -> None:
    import gzip
    import io
    import tarfile

    node_a, node_b = tmp_path / "a", tmp_path / "b"
    _publish(node_a, "k" * 32, b"\x7fELF library bytes")
    packed = pack_entries(["k" * 32], root=node_a)
    members = tarfile.open(fileobj=io.BytesIO(packed["k" * 32]), mode="r:gz")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for member in members.getmembers():
            data = members.extractfile(member).read()  # type: ignore[union-attr]
            data = b"\x7fELF library BYTES" if member.name == "kt_lib.so" else data
            archive.addfile(member, io.BytesIO(data))
    assert gzip.decompress(buffer.getvalue()) != gzip.decompress(packed["k" * 32])
    assert install_entries({"k" * 32: buffer.getvalue()}, root=node_b) == []
    assert BuildCache(node_b).lookup("k" * 32) is None
    assert install_entries(packed, root=node_b) == ["k" * 32]  # the genuine one installs
    assert BuildCache(node_b).recorded("k" * 32) is not None
