"""Scratch directories: a killed owner's litter is swept by the next one made."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kerneltrials._scratch import make_scratch_dir, remove_tree, sweep_orphans

pytestmark = pytest.mark.timeout(60)

_MAKE_AND_HANG = """
import sys, time
from pathlib import Path
from kerneltrials._scratch import make_scratch_dir
path = make_scratch_dir("check", Path(sys.argv[1]))
(path / "inputs.pt").write_bytes(b"x" * 1024)
print(path, flush=True)
time.sleep(600)
"""


def _start_owner(parent: Path) -> tuple[subprocess.Popen[str], Path]:
    owner = subprocess.Popen([sys.executable, "-c", _MAKE_AND_HANG, str(parent)],
                             stdout=subprocess.PIPE, text=True)
    assert owner.stdout is not None
    return owner, Path(owner.stdout.readline().strip())


def test_a_killed_owners_directory_is_swept_and_a_live_ones_is_kept(tmp_path: Path) -> None:
    killed, killed_dir = _start_owner(tmp_path)
    alive, alive_dir = _start_owner(tmp_path)
    try:
        os.kill(killed.pid, signal.SIGKILL)
        killed.wait()
        assert killed_dir.is_dir()  # SIGKILL: the owner could not clean up
        fresh = make_scratch_dir("check", tmp_path)
        assert not killed_dir.exists()
        assert alive_dir.is_dir() and fresh.is_dir()
        assert fresh.name.startswith(f"kt-check-{os.getpid()}-")
    finally:
        alive.kill()
        alive.wait()


def test_other_kinds_and_foreign_names_are_left_alone(tmp_path: Path) -> None:
    dead_pid = _a_dead_pid()
    orphan = tmp_path / f"kt-check-{dead_pid}-abc"
    other_kind = tmp_path / f"kt-logs-{dead_pid}-abc"
    foreign = tmp_path / "kt-check-notapid"
    for path in (orphan, other_kind, foreign):
        path.mkdir()
    assert sweep_orphans("check", tmp_path) == [orphan]
    assert not orphan.exists() and other_kind.is_dir() and foreign.is_dir()


def _a_dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def nest(root: Path, depth: int) -> None:
    """``depth`` directories, each inside the last, made from descriptors as a job's
    native code would: no path is ever longer than one name."""
    at = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=at)
            inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=at)
            os.close(at)
            at = inner
    finally:
        os.close(at)


def test_a_tree_deeper_than_pythons_recursion_is_removed(deep_tmp: Path) -> None:
    tmp_path = deep_tmp
    (tmp_path / "deep").mkdir()
    nest(tmp_path / "deep", 3000)
    with pytest.raises(RecursionError):  # why remove_tree does not stop at rmtree
        shutil.rmtree(tmp_path / "deep", ignore_errors=True)
    remove_tree(tmp_path / "deep")
    assert not (tmp_path / "deep").exists()


def test_a_dead_owners_deep_tree_does_not_stop_the_next_directory(deep_tmp: Path) -> None:
    tmp_path = deep_tmp
    # A candidate's job nested directories in its check's scratch, and its harness died:
    # the next check's sweep must remove the tree, not fail on it (it failed every check).
    owner, path = _start_owner(tmp_path)
    nest(path, 3000)
    owner.send_signal(signal.SIGKILL)
    owner.wait()
    fresh = make_scratch_dir("check", tmp_path)
    assert fresh.is_dir() and not path.exists()
