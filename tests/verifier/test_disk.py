"""A full disk is the machine's or the candidate's, decided from outside its job.

The scratch filesystem is shared by every check on the machine. A worker that cannot write
its outputs fails like a crashing candidate; charging that to whoever wrote next is wrong,
and so is the opposite, letting a candidate make its own failure ``error`` (left out of
fast_p) by filling the disk. The native cheat (tests/verifier/native_disk/) fills it from
its writable output directory and hides the file by unlinking it while it stays open.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

import kerneltrials
from kerneltrials.sandbox._procfs import open_files
from kerneltrials.verifier import QUICK_TIMING, CheckOptions, Status, Verdict
from kerneltrials.verifier.harness import _disk
from kerneltrials.verifier.harness._disk import (
    MIB,
    DiskState,
    UnwalkableTree,
    directory_files,
    disk_outcome,
)
from tests.test_scratch import nest
from tests.verifier.candidates import candidate

NATIVE = Path(__file__).parent / "native_disk"
OPTIONS = CheckOptions(timing=QUICK_TIMING, compile_baseline=False, call_timeout_s=30,
                       hidden_seed=7)


def _flood(hold: str) -> str:
    """The native flood, keeping its unlinked file by a ``descriptor`` or a ``mapping``.
    Its checks run with the link policy off: it would reject the file calls (``open``,
    ``posix_fallocate``) before any run, and the accounting is what is tested."""
    return (NATIVE / "flood.py").read_text().replace('HOLD = "descriptor"', f"HOLD = {hold!r}")


def verify(source: str, **fields: object) -> Verdict:
    return kerneltrials.check("L1/relu", source, options=replace(OPTIONS, **fields))  # type: ignore[arg-type]


@contextlib.contextmanager
def _holder(script: str) -> Iterator[int]:
    """A process that runs ``script`` (which prints ``ready``), then sleeps; its pid."""
    process = subprocess.Popen([sys.executable, "-c", script + "print('ready', flush=True)\n"
                                "import time; time.sleep(60)\n"], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "ready"
        yield process.pid
    finally:
        process.kill()
        process.wait()


def _state(free_mib: int, held_mib: int, allowed_mib: int = 64) -> DiskState:
    return DiskState(free_mib * MIB, held_mib * MIB, allowed_mib * MIB, Path("/tmp"))


def test_the_disk_is_the_story_only_when_full_or_flooded() -> None:
    assert disk_outcome(_state(10_000, 1), floor_bytes=256 * MIB) is None
    full = disk_outcome(_state(100, 1), floor_bytes=256 * MIB)
    assert full is not None and full.status == Status.ERROR
    assert full.reasons[0].startswith("machine:disk_full:100 MiB free")
    # Whatever the free space, a job that holds more than its outputs is rejected.
    for free in (100, 10_000):
        flood = disk_outcome(_state(free, 600), floor_bytes=256 * MIB)
        assert flood is not None and flood.status == Status.REJECTED
        assert flood.reasons[0].startswith("sandbox:disk_flood:"), flood.reasons


def test_an_unlinked_file_held_open_counts_and_no_listing_sees_it(tmp_path: Path) -> None:
    hidden = str(tmp_path / "hidden")
    with _holder(f"import os\nfd = os.open({hidden!r}, os.O_CREAT | os.O_RDWR)\n"
                 f"os.posix_fallocate(fd, 0, 8 << 20)\nos.unlink({hidden!r})\n") as pid:
        assert directory_files(tmp_path) == {}
        assert sum(open_files([pid], {tmp_path.stat().st_dev}).values()) >= 8 * MIB


def test_a_deleted_file_kept_only_by_a_mapping_counts(tmp_path: Path) -> None:
    # The descriptor is closed (ctypes' mmap: Python's own mmap keeps a duplicate), the
    # file unlinked; a mapped file that still has a name (a library) is not counted.
    script = (
        "import ctypes, mmap, os\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "libc.mmap.restype = ctypes.c_void_p\n"
        "libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,"
        " ctypes.c_int, ctypes.c_long]\n"
        "def mapped(path, keep):\n"
        "    fd = os.open(path, os.O_CREAT | os.O_RDWR)\n"
        "    os.posix_fallocate(fd, 0, 8 << 20)\n"
        "    assert libc.mmap(None, 8 << 20, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0) != 2**64 - 1\n"
        "    os.close(fd)\n"
        "    if not keep: os.unlink(path)\n"
        f"mapped({str(tmp_path / 'hidden')!r}, False)\n"
        f"mapped({str(tmp_path / 'named')!r}, True)\n")
    with _holder(script) as pid:
        held = open_files([pid], {tmp_path.stat().st_dev})
        assert sum(held.values()) >= 8 * MIB, held
        assert (tmp_path / "named").stat().st_ino not in held


def test_a_tree_too_deep_or_too_wide_is_counted_as_a_flood_not_walked_for_ever(
        deep_tmp: Path) -> None:
    tmp_path = deep_tmp
    (tmp_path / "deep").mkdir()
    nest(tmp_path / "deep", 1500)  # deeper than Python's recursion, shorter than PATH_MAX
    assert len(directory_files(tmp_path / "deep")) == 1500
    (tmp_path / "deeper").mkdir()
    nest(tmp_path / "deeper", 3000)  # past PATH_MAX: a name the walk cannot open
    with pytest.raises(UnwalkableTree, match="longest path"):
        directory_files(tmp_path / "deeper")
    (tmp_path / "wide").mkdir()
    for index in range(50):
        (tmp_path / "wide" / str(index)).touch()
    with pytest.raises(UnwalkableTree, match="more than 40 entries"):
        directory_files(tmp_path / "wide", max_entries=40)
    flood = disk_outcome(DiskState(10_000 * MIB, 0, 64 * MIB, tmp_path, "more than 40 entries"))
    assert flood is not None and flood.status == Status.REJECTED


@pytest.mark.timeout(300)
def test_a_nearly_full_disk_stops_a_check_before_any_job(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_disk, "DISK_FLOOR_BYTES", 1 << 60)
    verdict = verify(candidate("relu_ok"))
    assert verdict.status == Status.ERROR, verdict.reasons
    assert verdict.reasons[0].startswith("machine:disk_full:"), verdict.reasons
    assert verdict.configs == [] and not verdict.compiled


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_crash_on_a_full_disk_is_the_machines(monkeypatch: pytest.MonkeyPatch) -> None:
    # The disk reads as full only when the run stage ends (the check started on a healthy
    # one): the crash is not charged, and its own reason stays in the verdict.
    monkeypatch.setattr("kerneltrials.verifier._check.require_free_disk", lambda root: None)
    monkeypatch.setattr(_disk, "free_bytes", lambda path: 5 * MIB)
    verdict = verify(candidate("relu_crash"))
    assert verdict.status == Status.ERROR, verdict.reasons
    assert verdict.reasons[0].startswith("machine:disk_full:5 MiB free"), verdict.reasons
    assert any("signal 11" in reason for reason in verdict.reasons), verdict.reasons


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("hold", ["descriptor", "mapping"])
def test_native_flood_from_the_output_directory_is_rejected(hold: str) -> None:
    verdict = verify(_flood(hold), source_scans=False, link_policy=False)
    assert verdict.status == Status.REJECTED, verdict.reasons
    assert any(r.startswith("sandbox:disk_flood:") for r in verdict.reasons), verdict.reasons


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_without_the_open_file_accounting_the_flood_gets_through(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The control: the file is unlinked, so only the descriptors it holds show it.
    monkeypatch.setattr(_disk, "open_files", lambda pids, devices: {})
    verdict = verify(_flood("descriptor"), source_scans=False, link_policy=False)
    assert verdict.status == Status.CORRECT, verdict.reasons

