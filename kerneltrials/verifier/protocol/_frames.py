"""Frames on the private channel between the parent and a worker.

A frame is a 4-byte big-endian length and a UTF-8 JSON object. The parent's first frame
is ``{"op": "hello", "nonce": ...}``: the job's nonce travels on the channel, never in the
environment (``/proc/<pid>/environ`` keeps a process's initial environment even after
``os.environ`` drops a variable). Every frame from the worker echoes the nonce; the parent
treats a frame without it as forged. Tensors never travel here: they go through files in
the job's directories.
"""

from __future__ import annotations

import json
import os
import select
import socket
import struct
import time
from typing import Any

MAX_FRAME_BYTES = 64 * 1024 * 1024
HELLO_OP = "hello"
_HEADER = struct.Struct(">I")


class ChannelClosed(ConnectionError):
    """The peer closed the channel (a worker that exited or was killed)."""


class ChannelTimeout(TimeoutError):
    """No complete frame arrived in time."""


class MalformedFrame(ValueError):
    """A frame that no genuine peer sends: oversized, not JSON, or not a JSON object."""


def send_frame(sock: socket.socket, payload: dict[str, Any]) -> None:
    data = json.dumps(payload, allow_nan=True).encode()
    sock.sendall(_HEADER.pack(len(data)) + data)


def _read_exactly(sock: socket.socket, size: int, deadline: float | None) -> bytes:
    chunks, remaining = [], size
    while remaining:
        if deadline is not None:
            wait_s = deadline - time.monotonic()
            if wait_s <= 0 or not select.select([sock], [], [], wait_s)[0]:
                raise ChannelTimeout("no reply from worker in time")
        chunk = sock.recv(min(remaining, 1 << 20))
        if not chunk:
            raise ChannelClosed("worker closed the channel")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def recv_frame(sock: socket.socket, timeout_s: float | None = None) -> dict[str, Any]:
    """Read one frame.

    Raises:
        ChannelTimeout: no complete frame in ``timeout_s``.
        ChannelClosed: the peer closed the channel.
        MalformedFrame: the bytes are not a frame (oversized, not a JSON object).
    """
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    (size,) = _HEADER.unpack(_read_exactly(sock, _HEADER.size, deadline))
    if size > MAX_FRAME_BYTES:
        raise MalformedFrame(f"oversized frame ({size} bytes)")
    data = _read_exactly(sock, size, deadline)
    try:
        payload = json.loads(data)
    except ValueError as error:  # bad UTF-8 or bad JSON
        raise MalformedFrame(f"frame is not JSON: {error}") from None
    if not isinstance(payload, dict):
        raise MalformedFrame("frame is not a JSON object")
    return payload


def send_hello(sock: socket.socket, nonce: str) -> None:
    """The parent's first frame: the job nonce the worker must echo in every reply."""
    send_frame(sock, {"op": HELLO_OP, "nonce": nonce})


def recv_hello(sock: socket.socket) -> str:
    """The worker's first read: the job nonce; raises :class:`ChannelClosed` on anything else."""
    try:
        frame = recv_frame(sock)
    except MalformedFrame as error:
        raise ChannelClosed(f"the first frame on the channel was malformed: {error}") from None
    nonce = frame.get("nonce")
    if frame.get("op") != HELLO_OP or not isinstance(nonce, str) or not nonce:
        raise ChannelClosed("the first frame on the channel was not a hello")
    return nonce


def open_channel_from_env() -> socket.socket:
    """The worker's end of the channel; its address is removed from ``os.environ``.

    The address alone is worth nothing to a candidate (``fd:N`` is already its own
    descriptor; a ``unix:`` listener accepts one connection, the worker's, before any
    candidate code runs). The nonce is not in the environment: see :func:`recv_hello`.
    """
    from kerneltrials.sandbox._channel import CHANNEL_ENV, open_worker_channel

    sock = open_worker_channel()
    os.environ.pop(CHANNEL_ENV, None)
    return sock
