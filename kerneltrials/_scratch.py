"""Temporary directories that a killed harness process does not leave behind.

Each directory's name carries the pid of the process that made it
(``kt-<kind>-<pid>-<random>``). A process that dies by SIGKILL cannot clean up, so every
new directory of a kind first removes the ones whose owner is gone: a killed ``eval``, a
lost Ray worker or an interrupted test leaves litter only until the next check runs.

A check's directory holds what a candidate's job wrote, so it is removed by
:func:`remove_tree`, which no tree's depth stops.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from kerneltrials._pids import pid_alive
from kerneltrials._tmpfs import unmount_under

_OWNED_SUFFIX = re.compile(r"(?P<pid>\d+)-[^-/]+")  # after "kt-<kind>-"


def remove_tree(path: Path) -> None:
    """Remove ``path`` and everything under it, never following links, however deep.

    ``shutil.rmtree`` recurses once per level: a tree deeper than the interpreter's
    recursion limit (a candidate's job can build one where it may write) raises
    ``RecursionError`` even with ``ignore_errors``, and stays on the disk, where every later
    sweep would meet it again. What it leaves, GNU ``rm`` removes at any depth. A
    filesystem the harness mounted inside (``_tmpfs``) is detached first, its pages freed."""
    unmount_under(path)
    try:
        shutil.rmtree(path, ignore_errors=True)
    except RecursionError:
        pass
    if os.path.lexists(path):
        try:
            subprocess.run(["rm", "-rf", "--one-file-system", "--", str(path)],
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=False)
        except OSError:  # no rm: what is left stays, as with any undeletable litter
            pass


def sweep_orphans(kind: str, parent: Path | None = None) -> list[Path]:
    """Remove the ``kind`` directories whose owning process has exited; returns them."""
    removed = []
    prefix = f"kt-{kind}-"
    for entry in (parent or Path(tempfile.gettempdir())).glob(prefix + "*"):
        match = _OWNED_SUFFIX.fullmatch(entry.name[len(prefix):])
        if match is None or pid_alive(int(match["pid"])):
            continue
        remove_tree(entry)
        removed.append(entry)
    return removed


def make_scratch_dir(kind: str, parent: Path | None = None) -> Path:
    """A fresh private directory ``kt-<kind>-<pid>-*`` (after sweeping dead owners')."""
    sweep_orphans(kind, parent)
    return Path(tempfile.mkdtemp(prefix=f"kt-{kind}-{os.getpid()}-", dir=parent))
