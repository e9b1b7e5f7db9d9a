"""Host ``/proc`` reads about a job's processes: which of them holds a socket, in what
order they started. Read by the (root) harness from outside; the job cannot change what
the kernel reports here. See docs/design/sandbox.md ("Measuring a job from outside").
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection, Iterable


def holds_socket(pid: int, inode: int) -> bool:
    """Does any descriptor of ``pid`` refer to the socket with ``inode``?"""
    target = f"socket:[{inode}]"
    for name in _entries(f"/proc/{pid}/fd"):
        try:
            if os.readlink(f"/proc/{pid}/fd/{name}") == target:
                return True
        except OSError:
            continue
    return False


def start_ticks(pid: int) -> int:
    """When ``pid`` started (clock ticks since boot); a large number when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
        return int(fields[19])  # field 22 of stat(5); fields[0] is field 3
    except (OSError, IndexError, ValueError):
        return 1 << 62


def socket_holders(pids: Iterable[int], inode: int) -> list[int]:
    """The ``pids`` holding socket ``inode``, oldest first (a worker before the children it
    forked, which inherit its descriptors)."""
    holders = [pid for pid in pids if holds_socket(pid, inode)]
    return sorted(holders, key=lambda pid: (start_ticks(pid), pid))


def socket_inode(fd: int) -> int:
    """The inode of an open socket descriptor (what ``/proc/<pid>/fd`` links name)."""
    return os.fstat(fd).st_ino


def open_files(pids: Iterable[int], devices: Collection[int]) -> dict[tuple[int, int], int]:
    """Allocated bytes by (device, inode) of the regular files on ``devices`` that ``pids``
    hold: through a descriptor (any such file, deleted ones included: a file unlinked while
    open keeps its blocks until the last close, and no directory walk sees it), or through
    a mapping alone, descriptor closed (deleted files only: every process maps the
    interpreter's and torch's libraries, which may live on the same filesystem)."""
    held: dict[tuple[int, int], int] = {}
    for pid in pids:
        for name in _entries(f"/proc/{pid}/fd"):
            info = _stat(f"/proc/{pid}/fd/{name}")  # follows to the open file itself
            if info is not None and info.st_dev in devices and stat.S_ISREG(info.st_mode):
                held[info.st_dev, info.st_ino] = info.st_blocks * 512
        for name in _entries(f"/proc/{pid}/map_files"):  # readable by a privileged reader
            info = _stat(f"/proc/{pid}/map_files/{name}")
            if (info is not None and info.st_dev in devices and stat.S_ISREG(info.st_mode)
                    and info.st_nlink == 0):
                held[info.st_dev, info.st_ino] = info.st_blocks * 512
    return held


def _entries(directory: str) -> list[str]:
    try:
        return os.listdir(directory)
    except OSError:
        return []


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None
