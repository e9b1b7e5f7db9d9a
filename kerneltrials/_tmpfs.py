"""Directories with a size of their own: a tmpfs the (root) harness mounts over one.

The candidate's job may write one host directory (``candidate-out/``). On the shared
scratch filesystem nothing bounds what it writes there but the disk: ``RLIMIT_FSIZE``
caps one file, not how many, and ``fallocate`` takes gigabytes per system call, faster
than anything could watch. A tmpfs of a fixed size over that directory bounds it in the
kernel: a write past it gets ``ENOSPC``, and every page written is charged to the
writer's memory cgroup (the job's, already limited). The parent reads the same host path.

Mounting needs ``CAP_SYS_ADMIN`` in the host's mount namespace; without it the directory
stays as it was (:func:`mount_tmpfs` says so) and only the disk judgment guards it. A
harness that dies leaves its mounts: :func:`unmount_under` takes them down before any
tree is removed (``_scratch.remove_tree``), so the sweep of dead checks' directories
frees their memory too.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from pathlib import Path

_MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 2, 4, 8
_MNT_DETACH = 2

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def mount_tmpfs(directory: Path, size_bytes: int, max_files: int) -> str | None:
    """Mount a tmpfs of ``size_bytes`` holding at most ``max_files`` entries over the
    (empty) ``directory``: no devices, no set-uid, nothing executable from it. Returns
    None when mounted, else why not (not root, or the kernel refused)."""
    if os.geteuid() != 0:
        return "the harness is not root"
    options = f"size={size_bytes},nr_inodes={max_files},mode=0700".encode()
    if _libc.mount(b"tmpfs", os.fsencode(directory), b"tmpfs",
                   ctypes.c_ulong(_MS_NOSUID | _MS_NODEV | _MS_NOEXEC), options) != 0:
        return os.strerror(ctypes.get_errno())
    return None


def mounts_under(root: Path) -> list[Path]:
    """Mount points at or below ``root`` in this process's mount table, deepest first."""
    prefix = os.path.realpath(root)
    found = []
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as table:
            for line in table:
                fields = line.split(" ")
                if len(fields) > 4:
                    point = _unescape(fields[4])
                    if point == prefix or point.startswith(prefix.rstrip("/") + "/"):
                        found.append(Path(point))
    except OSError:
        return []
    return sorted(found, key=lambda path: len(path.parts), reverse=True)


def unmount_under(root: Path) -> None:
    """Detach every mount at or below ``root`` (lazily: a process that still holds a file
    there keeps only that file, and the mount leaves the tree at once). Nothing to do for
    a harness that never mounted (and may not unmount)."""
    if os.geteuid() != 0:
        return
    for point in mounts_under(root):
        _libc.umount2(os.fsencode(point), _MNT_DETACH)


def _unescape(field: str) -> str:
    """mountinfo writes space, tab, newline and backslash in a path as octal escapes."""
    for escaped, plain in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field = field.replace(escaped, plain)
    return field
