"""Reading a job process's memory from the trusted side (``process_vm_readv``).

The parent reads a frozen worker's output buffers directly, without asking the worker (whose
every byte the candidate controls) to copy or send anything. Only pids of the given job
are read: the pid is checked against the job's cgroup before and after the read (a pid
that left the job in between, e.g. reused by a host process, discards the bytes).

Permissions: the kernel applies ptrace's access check (``PTRACE_MODE_ATTACH_REALCREDS``).
A root harness (``CAP_SYS_PTRACE`` in the initial user namespace) may read any job
process, even one that made itself non-dumpable; a harness that is not root needs the
same uid as the job and a Yama ``ptrace_scope`` of 0, which the sandbox's own user drop
rules out: the error says so. See docs/design/sandbox.md ("Measuring a job from outside").
"""

from __future__ import annotations

import ctypes
import errno
import os
from array import array
from collections.abc import Sequence

from kerneltrials.sandbox._base import SandboxedProcess

#: Remote ranges per syscall (the kernel's UIO_MAXIOV).
_IOV_MAX = 1024
#: Bytes per syscall: the kernel caps one call at MAX_RW_COUNT (2 GiB less a page); long
#: ranges are split into pieces of this size, several pieces per call.
_CHUNK_BYTES = 1 << 30
_LAST_ADDRESS = (1 << 64) - 1


class MemoryReadError(RuntimeError):
    """The harness could not read the job's memory (a harness failure, or a range the
    job does not have mapped: the caller decides which it is). ``errno``: the syscall's
    error (``EPERM``: the harness lacks the privilege), or None for a short read."""

    def __init__(self, message: str, errno: int | None = None) -> None:
        super().__init__(message)
        self.errno = errno


class ProcessNotInJobError(MemoryReadError):
    """The pid is not a process of this job: never read."""


class _IoVec(ctypes.Structure):
    _fields_ = [("iov_base", ctypes.c_void_p), ("iov_len", ctypes.c_size_t)]


_libc = ctypes.CDLL(None, use_errno=True)
_readv = _libc.process_vm_readv
_readv.restype = ctypes.c_ssize_t
_readv.argtypes = [
    ctypes.c_int,
    ctypes.POINTER(_IoVec),
    ctypes.c_ulong,
    ctypes.POINTER(_IoVec),
    ctypes.c_ulong,
    ctypes.c_ulong,
]


def read_process_memory(
    job: SandboxedProcess, pid: int, address: int, length: int
) -> bytearray:
    """``length`` bytes at ``address`` in job process ``pid`` (a host pid from ``job.pids()``),
    in a fresh ``bytearray`` (not copied again into ``bytes``: that halves the bandwidth).

    Raises:
        ProcessNotInJobError: ``pid`` is not (or no longer) a process of ``job``.
        MemoryReadError: no permission, the process is gone, or the range is not all
            mapped and readable in it (a short read: nothing partial is returned).
    """
    return read_process_memory_many(job, pid, [(address, length)])[0]


def read_process_memory_many(
    job: SandboxedProcess, pid: int, ranges: Sequence[tuple[int, int]]
) -> list[bytearray]:
    """The bytes of several ``(address, length)`` ranges of job process ``pid``, read with
    as few syscalls as the kernel allows (1024 ranges or 1 GiB per call)."""
    buffers = [bytearray(length) for _, length in ranges]
    read_process_memory_into(
        job, pid, [(address, buffer) for (address, _), buffer in zip(ranges, buffers, strict=True)]
    )
    return buffers


def read_process_memory_into(
    job: SandboxedProcess, pid: int, requests: Sequence[tuple[int, bytearray | memoryview]]
) -> None:
    """Fill each writable buffer with the bytes at its address in job process ``pid``, no
    intermediate copy (the fast path: e.g. straight into a NumPy array's memory)."""
    _check_member(job, pid)
    pieces = _pieces(requests)
    for start in range(0, len(pieces), _IOV_MAX):
        batch = pieces[start : start + _IOV_MAX]
        while batch:
            size = 0
            count = 0
            for _, _, length in batch:
                if count and size + length > _CHUNK_BYTES:
                    break
                size += length
                count += 1
            _read_batch(pid, batch[:count])
            batch = batch[count:]
    _check_member(job, pid)  # the pid was the job's all along: the bytes are its


def read_process_elements(
    job: SandboxedProcess, pid: int, addresses: Sequence[int], itemsize: int
) -> bytearray:
    """``itemsize`` bytes at each of ``addresses`` in job process ``pid``, back to back in
    one ``bytearray``: a gather of scattered elements (a sample of a large output).

    Raises:
        ValueError: an address outside the 64-bit address space.
        ProcessNotInJobError, MemoryReadError: as :func:`read_process_memory`.
    """
    if itemsize <= 0:
        raise ValueError(f"elements of {itemsize} bytes")
    return read_process_ranges(job, pid, addresses, array("Q", [itemsize]) * len(addresses))


def read_process_ranges(
    job: SandboxedProcess, pid: int, addresses: Sequence[int], lengths: Sequence[int]
) -> bytearray:
    """The ranges of ``lengths[i]`` bytes at ``addresses[i]`` in job process ``pid``, back
    to back in one ``bytearray``, 1024 ranges per syscall, with no per-range buffer. The
    remote ranges are built in a machine-word array, not range by range in Python.

    Raises:
        ValueError: a range outside the 64-bit address space, or longer than one call reads.
        ProcessNotInJobError, MemoryReadError: as :func:`read_process_memory`.
    """
    try:  # a negative or too large address or length overflows here
        starts, sizes = array("Q", addresses), array("Q", lengths)
    except OverflowError:
        raise ValueError("ranges outside the address space") from None
    if len(starts) != len(sizes):
        raise ValueError(f"{len(starts)} addresses for {len(sizes)} lengths")
    # No range can pass the top: each is at most a read long, none starts within one of it.
    if sizes and (max(sizes) > _CHUNK_BYTES or min(sizes) == 0
                  or max(starts) > _LAST_ADDRESS - _CHUNK_BYTES):
        raise ValueError("ranges outside the address space, empty or longer than a read")
    _check_member(job, pid)
    gathered = bytearray(sum(sizes))
    if gathered:
        base = ctypes.addressof(ctypes.c_char.from_buffer(gathered))
    offset, start = 0, 0
    while start < len(starts):
        count = min(_IOV_MAX, len(starts) - start)  # ranges per call, at most a read's bytes
        size = sum(sizes[start : start + count])
        while size > _CHUNK_BYTES:
            count -= 1
            size -= sizes[start + count]
        remote = array("Q", bytes(16 * count))  # iov_base, iov_len pairs
        remote[0::2] = starts[start : start + count]
        remote[1::2] = sizes[start : start + count]
        iovecs = ctypes.cast(remote.buffer_info()[0], ctypes.POINTER(_IoVec))
        local = _IoVec(base + offset, size)
        done = _readv(pid, ctypes.byref(local), 1, iovecs, count, 0)
        if done < 0:
            code = ctypes.get_errno()
            raise MemoryReadError(_explain(pid, code, starts[start]), errno=code)
        if done != size:
            failed = _first_unread([(starts[i], 0, sizes[i]) for i in range(start, start + count)],
                                   done)
            raise MemoryReadError(
                f"short read from pid {pid}: the range at {failed:#x} is not mapped and "
                "readable in the job's process"
            )
        offset += size
        start += count
    _check_member(job, pid)
    return gathered


def _pieces(
    requests: Sequence[tuple[int, bytearray | memoryview]],
) -> list[tuple[int, int, int]]:
    """(remote address, local address, length) pieces of at most ``_CHUNK_BYTES`` each."""
    pieces = []
    for address, buffer in requests:
        view = memoryview(buffer).cast("B")
        if view.readonly:
            raise ValueError("read_process_memory_into needs writable buffers")
        if not view.nbytes:
            continue
        local = ctypes.addressof(ctypes.c_char.from_buffer(view))
        for offset in range(0, view.nbytes, _CHUNK_BYTES):
            length = min(_CHUNK_BYTES, view.nbytes - offset)
            pieces.append((address + offset, local + offset, length))
    return pieces


def _read_batch(pid: int, pieces: list[tuple[int, int, int]]) -> None:
    count = len(pieces)
    local = (_IoVec * count)(*[_IoVec(piece[1], piece[2]) for piece in pieces])
    remote = (_IoVec * count)(*[_IoVec(piece[0], piece[2]) for piece in pieces])
    wanted = sum(piece[2] for piece in pieces)
    done = _readv(pid, local, count, remote, count, 0)
    if done < 0:
        code = ctypes.get_errno()
        raise MemoryReadError(_explain(pid, code, pieces[0][0]), errno=code)
    if done != wanted:
        failed = _first_unread(pieces, done)
        raise MemoryReadError(
            f"short read from pid {pid}: {done} of {wanted} bytes; the range at "
            f"{failed:#x} is not mapped and readable in the job's process"
        )


def _first_unread(pieces: list[tuple[int, int, int]], done: int) -> int:
    for remote, _, length in pieces:
        if done < length:
            return remote + done
        done -= length
    return pieces[-1][0]


def _explain(pid: int, code: int, address: int) -> str:
    name = errno.errorcode.get(code, str(code))
    if code == errno.EPERM:
        return (
            f"process_vm_readv of pid {pid}: EPERM: the harness may not read it (needs "
            "root/CAP_SYS_PTRACE, or the same uid and Yama ptrace_scope 0)"
        )
    if code == errno.ESRCH:
        return f"process_vm_readv of pid {pid}: ESRCH: the process is gone"
    if code == errno.EFAULT:
        return f"process_vm_readv of pid {pid}: EFAULT: {address:#x} is not mapped readable in it"
    return f"process_vm_readv of pid {pid}: {name} ({os.strerror(code)})"


def _check_member(job: SandboxedProcess, pid: int) -> None:
    members = job.pids()
    if pid not in members:
        raise ProcessNotInJobError(
            f"pid {pid} is not a process of this job (its processes: {members}); not read"
        )
