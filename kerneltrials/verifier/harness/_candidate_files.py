"""Files the candidate's job wrote, opened by the parent without trusting their names.

``candidate-out/`` is the one directory the candidate's job may write, and its native code
may put anything there under any name, at any moment it runs: a helper thread can swap the
file the worker just saved for a symbolic link (which the parent, root here, would follow
to a file of the host's or to its own ``/proc/self/...``) or for a named pipe (whose
``open`` would wait for a writer for ever: the job is frozen, so none comes, and a hung
check is the machine's ``error``, which fast_p leaves out). So the parent never opens such
a file by following its name: the last component is opened without following links and
without blocking, and what was opened must be a regular file no larger than the job could
write (its ``RLIMIT_FSIZE``). Anything else is the candidate's tampering, rejected. The
directories above it are the parent's (the job cannot replace ``candidate-out`` itself).
"""

from __future__ import annotations

import errno
import os
import stat
import zipfile
from pathlib import Path
from typing import Any, BinaryIO

import torch

from kerneltrials.verifier.protocol import is_branch

_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_KINDS = ((stat.S_ISDIR, "directory"), (stat.S_ISFIFO, "named pipe"),
          (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "character device"),
          (stat.S_ISBLK, "block device"))


class TamperedFile(Exception):
    """A file in ``candidate-out/`` is not what its job's worker writes there; the message
    says what it is instead ("a named pipe"), never its name (which may hold a seed)."""


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "special file")


def open_candidate_file(path: str | Path, max_bytes: int) -> BinaryIO:
    """``path`` opened for reading, if it is a regular file of at most ``max_bytes``.

    Raises :class:`TamperedFile` for a symbolic link, a pipe, a directory, a device or a
    larger file; ``OSError`` (e.g. ``FileNotFoundError``), without the path, when it
    cannot be opened at all (its name holds a seed; messages may reach the verdict).
    """
    try:
        descriptor = os.open(path, _OPEN_FLAGS)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise TamperedFile("a symbolic link") from None
        raise OSError(error.errno, error.strerror) from None  # without the path
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise TamperedFile(f"a {_kind(info.st_mode)}")
        if info.st_size > max_bytes:
            raise TamperedFile(f"a file of {info.st_size} bytes, more than its job may "
                               f"write ({max_bytes})")
        os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def read_candidate_text(path: str | Path, max_bytes: int) -> str:
    """A text file from ``candidate-out/``, opened as :func:`open_candidate_file` does and
    decoded with replacement (its bytes are the candidate's)."""
    with open_candidate_file(path, max_bytes) as stream:
        return stream.read(max_bytes).decode("utf-8", errors="replace")


#: torch.save's archive of a worker's outputs: a small pickle (the tensors' bytes are
#: records of their own), stored uncompressed, one record per storage. Its weights-only
#: unpickler is Python, one step per opcode: a file rewritten with a pickle of hundreds of
#: megabytes would keep the parent busy for minutes and fill its memory.
MAX_PICKLE_BYTES = 1024**2
MAX_ARCHIVE_RECORDS = 10_000


def _check_archive(stream: BinaryIO) -> None:
    try:
        with zipfile.ZipFile(stream) as archive:
            records = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        raise TamperedFile("a file that is no tensor archive") from None
    if len(records) > MAX_ARCHIVE_RECORDS:
        raise TamperedFile(f"an archive of {len(records)} records")
    if any(record.compress_type != zipfile.ZIP_STORED for record in records):
        raise TamperedFile("an archive with compressed records")  # torch stores them
    pickled = [r.file_size for r in records if r.filename.endswith("data.pkl")]
    if len(pickled) != 1 or pickled[0] > MAX_PICKLE_BYTES:
        raise TamperedFile(f"an archive whose pickle is not one of at most {MAX_PICKLE_BYTES} "
                           f"bytes")
    stream.seek(0)


def load_candidate_tensors(path: str | Path, max_bytes: int) -> Any:
    """A tensor file from ``candidate-out/`` (``torch.load`` with ``weights_only``), read
    through :func:`open_candidate_file` and copied, never mapped: its job could change or
    truncate a mapped file under the parent."""
    with open_candidate_file(path, max_bytes) as stream:
        _check_archive(stream)
        loaded = torch.load(stream, weights_only=True)
    _check_nesting(loaded)
    return loaded


#: Deeper containers than this are no worker's. The file's bytes are the job's to rewrite
#: after its worker saved it, and the unpickler builds any depth without recursing; the
#: parent's walkers keep their own stack (``protocol/_tree.py``), but any other Python
#: that recurses over what was loaded (a ``repr`` in a message) would not survive it.
MAX_NESTING = 64


def _check_nesting(value: Any) -> None:
    pending = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):  # the correctness file is one; the walkers know no dicts
            item = list(item.values())
        if is_branch(item):
            if depth >= MAX_NESTING:
                raise TamperedFile(f"containers nested more than {MAX_NESTING} deep")
            pending.extend((inner, depth + 1) for inner in item)
