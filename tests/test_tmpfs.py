"""A directory with a size of its own: the kernel refuses what does not fit, and the
directory's removal (a check's own, or the sweep after a killed harness) takes the mount
down with it, so neither the memory nor the mount outlives the check."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kerneltrials._scratch import make_scratch_dir, remove_tree
from kerneltrials._tmpfs import mount_tmpfs, mounts_under

pytestmark = [pytest.mark.timeout(60),
              pytest.mark.skipif(os.geteuid() != 0, reason="mounting needs root")]

MIB = 1024**2


def _fill(directory: Path, files: int, size: int) -> int:
    """Allocate up to ``files`` files of ``size`` bytes; how many fit."""
    for index in range(files):
        fd = os.open(directory / f"f{index}", os.O_CREAT | os.O_RDWR, 0o600)
        try:
            os.posix_fallocate(fd, 0, size)
        except OSError as error:
            assert error.errno == errno.ENOSPC
            return index
        finally:
            os.close(fd)
    return files


def test_the_kernel_refuses_past_the_size_and_past_the_file_count(tmp_path: Path) -> None:
    sized = tmp_path / "sized"
    sized.mkdir()
    assert mount_tmpfs(sized, 8 * MIB, 100) is None
    try:
        assert _fill(sized, 100, MIB) == 8  # the ninth is refused
        for index in range(200):
            try:
                (sized / f"empty{index}").touch()
            except OSError as error:
                assert error.errno == errno.ENOSPC
                break
        else:
            pytest.fail("200 files fitted in a filesystem of 100")
        assert mounts_under(tmp_path) == [sized]
    finally:
        remove_tree(tmp_path / "sized")
    assert mounts_under(tmp_path) == [] and not sized.exists()
    plain = tmp_path / "plain"  # the control: the same files on the disk all fit
    plain.mkdir()
    assert _fill(plain, 16, MIB) == 16


def test_a_mount_under_an_odd_name_is_found_and_removed(tmp_path: Path) -> None:
    odd = tmp_path / "with space\tand\\backslash"
    odd.mkdir()
    assert mount_tmpfs(odd, MIB, 10) is None
    assert mounts_under(tmp_path) == [odd]
    remove_tree(odd)
    assert mounts_under(tmp_path) == [] and not odd.exists()


_MOUNT_AND_HANG = """
import sys, time
from pathlib import Path
from kerneltrials._scratch import make_scratch_dir
from kerneltrials._tmpfs import mount_tmpfs
path = make_scratch_dir("check", Path(sys.argv[1]))
(path / "out").mkdir()
assert mount_tmpfs(path / "out", 1 << 20, 10) is None
(path / "out" / "x").write_bytes(b"x" * 4096)
print(path, flush=True)
time.sleep(600)
"""


def test_a_killed_harness_mount_is_taken_down_by_the_next_sweep(tmp_path: Path) -> None:
    owner = subprocess.Popen([sys.executable, "-c", _MOUNT_AND_HANG, str(tmp_path)],
                             stdout=subprocess.PIPE, text=True)
    assert owner.stdout is not None
    path = Path(owner.stdout.readline().strip())
    owner.send_signal(signal.SIGKILL)
    owner.wait()
    assert mounts_under(tmp_path) == [path / "out"]  # SIGKILL: the mount stayed
    fresh = make_scratch_dir("check", tmp_path)
    assert mounts_under(tmp_path) == [] and not path.exists() and fresh.is_dir()
