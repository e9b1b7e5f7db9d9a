"""Whose fault a full disk is: the machine's (``error``, never charged) or the
candidate's (it wrote past its allowance), decided from outside the candidate's job.

A worker that cannot write its outputs fails like any crashing candidate, so without this
a scratch filesystem filled by something else (another check, another program) would be
charged to whichever candidate wrote next. The opposite must not hold either: ``error``
is excluded from fast_p, so a candidate must not be able to turn its own verdict into
``error`` by filling the disk. So the decision reads only what the kernel reports to the
(root) harness: the filesystem's free space, the bytes in the directories the candidate's
job may write, and the bytes of files its processes hold open (unlinked ones included).
See docs/design/sandbox.md ("Disk").
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from kerneltrials.sandbox._procfs import open_files
from kerneltrials.verifier.harness._session import Outcome, Session
from kerneltrials.verifier.verdict import Status

MIB = 1024**2
#: Below this much free space on the scratch filesystem a check neither starts nor charges
#: a failure to the candidate (unless the candidate's job holds the space).
DISK_FLOOR_BYTES = 256 * MIB
#: What the candidate's job may hold on that filesystem beyond twice what the reference's
#: job has written there (the pickling's slack, a small scratch file).
CANDIDATE_SLACK_BYTES = 64 * MIB


@dataclass(frozen=True)
class DiskState:
    """One look at the scratch filesystem, taken by the harness."""

    free_bytes: int
    candidate_bytes: int  # written under the candidate's writable directories or held open
    allowance_bytes: int
    where: Path  # the directory the check's scratch lives in
    unwalkable: str = ""  # why the candidate's directory could not be counted, if so


#: More entries than this under the candidate's writable directory are a flood of their
#: own: its worker saves a few files there per configuration, and a walk must end.
MAX_TREE_ENTRIES = 100_000


class UnwalkableTree(Exception):
    """A directory tree no worker writes: too many entries, or paths too long to name."""


def directory_files(directory: Path,
                    max_entries: int = MAX_TREE_ENTRIES) -> dict[tuple[int, int], int]:
    """Allocated bytes by (device, inode) of everything under ``directory``, directories included
    (no links followed), walked without recursion (a job can nest directories deeper than
    Python's recursion limit). Raises :class:`UnwalkableTree` past ``max_entries`` or for
    a path longer than the system can name."""
    files: dict[tuple[int, int], int] = {}
    pending, seen = [str(directory)], 0
    while pending:
        try:
            with os.scandir(pending.pop()) as entries:
                for entry in entries:
                    seen += 1
                    if seen > max_entries:
                        raise UnwalkableTree(f"more than {max_entries} entries")
                    info = _lstat(entry)
                    if info is not None:
                        files[info.st_dev, info.st_ino] = info.st_blocks * 512
                        if stat.S_ISDIR(info.st_mode):
                            pending.append(entry.path)
        except OSError as error:
            _unless_too_long(error)  # otherwise gone meanwhile: nothing to count
    return files


def _lstat(entry: os.DirEntry[str]) -> os.stat_result | None:
    try:
        return entry.stat(follow_symlinks=False)
    except OSError as error:
        _unless_too_long(error)
        return None


def _unless_too_long(error: OSError) -> None:
    if error.errno == errno.ENAMETOOLONG:
        raise UnwalkableTree("directories nested past the longest path") from None


def free_bytes(path: Path) -> int:
    """Bytes an unprivileged writer can still allocate on ``path``'s filesystem."""
    info = os.statvfs(path)
    return info.f_bavail * info.f_frsize


def look(session: Session) -> DiskState:
    """The free space, and what the candidate's job holds, right now."""
    # The output directory may be a filesystem of its own (_output_quota): a file held
    # open there counts as one on the shared disk does.
    devices = {os.stat(session.root).st_dev, os.stat(session.root / "candidate-out").st_dev}
    try:
        held, unwalkable = directory_files(session.root / "candidate-out"), ""
    except UnwalkableTree as error:
        held, unwalkable = {}, str(error)
    for worker in session.workers:
        if worker.role == "candidate":
            held.update(open_files(worker.process.pids(), devices))
    # The candidate's files are its outputs (and, on a checked call, its inputs after the
    # call): never more than twice what the reference has written and not yet discarded.
    trusted = {**directory_files(session.root / "private"),
               **directory_files(session.root / "exchange")}
    allowance = 2 * sum(trusted.values()) + CANDIDATE_SLACK_BYTES
    return DiskState(free_bytes(session.root), sum(held.values()), allowance, session.root.parent,
                     unwalkable)


def disk_outcome(state: DiskState, floor_bytes: int | None = None) -> Outcome | None:
    """The outcome a check ends with because of the disk, or None when the disk is not
    the story: a candidate past its allowance is rejected whatever the free space; a
    nearly full filesystem that the candidate did not fill is the machine's."""
    if state.unwalkable:
        return Outcome(Status.REJECTED,
                       f"sandbox:disk_flood:the candidate's job wrote a directory tree no "
                       f"worker writes ({state.unwalkable})")
    if state.candidate_bytes > state.allowance_bytes:
        return Outcome(Status.REJECTED,
                       f"sandbox:disk_flood:the candidate's job held "
                       f"{state.candidate_bytes / MIB:.0f} MiB on the scratch filesystem "
                       f"in files it wrote or holds open, its printed output included "
                       f"(its outputs need at most {state.allowance_bytes / MIB:.0f} MiB)")
    floor_bytes = DISK_FLOOR_BYTES if floor_bytes is None else floor_bytes
    if state.free_bytes < floor_bytes:
        return _disk_full(state.free_bytes, state.where, floor_bytes)
    return None


#: The failures a write that found no space ends in (an exception in the worker, or the
#: reference's failure, which is the harness's ``error`` already).
_DISK_FAILURES = (Status.RUNTIME_ERROR, Status.ERROR)


def judge_disk(session: Session, outcome: Outcome | None) -> Outcome | None:
    """The outcome the run stage ends with (None: it succeeded) once the disk has been
    looked at, while the candidate's job still runs so the files it holds open count: a
    flood rejects even a run that succeeded; a nearly full disk that the candidate did not
    fill turns a failure a write could cause into ``error``, its reasons kept after."""
    disk = disk_outcome(look(session))
    if disk is None:
        return outcome
    if disk.status == Status.REJECTED:
        return Outcome(disk.status, *disk.reasons, *(outcome.reasons if outcome else []))
    if outcome is None or outcome.status not in _DISK_FAILURES:
        return outcome
    return Outcome(disk.status, *disk.reasons, *outcome.reasons)


def require_free_disk(root: Path) -> None:
    """Before any job of a check starts: raise ``error`` when the disk is nearly full."""
    free = free_bytes(root)
    if free < DISK_FLOOR_BYTES:
        raise _disk_full(free, root.parent, DISK_FLOOR_BYTES)


def _disk_full(free: int, where: Path, floor_bytes: int) -> Outcome:
    return Outcome(Status.ERROR,
                   f"machine:disk_full:{free / MIB:.0f} MiB free on the filesystem of {where} "
                   f"(a check needs {floor_bytes / MIB:.0f} MiB); free space there, or point "
                   f"TMPDIR elsewhere, and retry")
