"""Frames on the private channel between the parent and a worker.

A frame is a 4-byte big-endian length and a UTF-8 JSON object. Every frame from a
worker carries the job's nonce; the parent drops frames without it. Tensors never
travel here: they go through files in the job's directories.
"""

from __future__ import annotations

import json
import os
import select
import socket
import struct
from typing import Any

MAX_FRAME_BYTES = 64 * 1024 * 1024
_HEADER = struct.Struct(">I")


class ChannelClosed(ConnectionError):
    """The peer closed the channel (a worker that exited or was killed)."""


class ChannelTimeout(TimeoutError):
    """No complete frame arrived in time."""


def send_frame(sock: socket.socket, payload: dict[str, Any]) -> None:
    data = json.dumps(payload, allow_nan=True).encode()
    sock.sendall(_HEADER.pack(len(data)) + data)


def _read_exactly(sock: socket.socket, size: int, deadline: float | None) -> bytes:
    import time

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
    """Read one frame; raises :class:`ChannelTimeout` or :class:`ChannelClosed`."""
    import time

    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    (size,) = _HEADER.unpack(_read_exactly(sock, _HEADER.size, deadline))
    if size > MAX_FRAME_BYTES:
        raise ChannelClosed(f"oversized frame ({size} bytes)")
    payload = json.loads(_read_exactly(sock, size, deadline))
    if not isinstance(payload, dict):
        raise ChannelClosed("malformed frame")
    return payload


def open_channel_from_env() -> tuple[socket.socket, str]:
    """The worker's end of the channel and the job nonce, removed from the environment.

    Removing them before any candidate code runs keeps the candidate from finding them
    through ``os.environ`` (it can still scan memory: the parent never trusts a frame's
    content beyond what it checks itself).
    """
    from kerneltrials.sandbox._channel import CHANNEL_ENV, NONCE_ENV, open_worker_channel

    sock = open_worker_channel()
    os.environ.pop(CHANNEL_ENV, None)
    nonce = os.environ.pop(NONCE_ENV, "")
    return sock, nonce
