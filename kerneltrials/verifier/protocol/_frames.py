"""Frames on the private channel between the parent and a worker.

A frame is a 4-byte big-endian length and a UTF-8 JSON object. The parent's first frame
is ``{"op": "hello", "nonce": ...}``: the job's nonce travels on the channel, never in the
environment (``/proc/<pid>/environ`` keeps a process's initial environment even after
``os.environ`` drops a variable). Every frame from the worker echoes the nonce; the parent
treats a frame without it as forged. Tensors never travel here: they go through files in
the job's directories.

Also the worker's side of the conversation (:func:`serve`), shared by the workers that
host candidate or reference code (``kerneltrials.verifier.worker``) and the compile job
(``kerneltrials.verifier.builds.compile_worker``).
"""

from __future__ import annotations

import json
import os
import select
import socket
import struct
import sys
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from kerneltrials.sandbox._channel import CHANNEL_ENV, open_worker_channel
from kerneltrials.verifier.protocol._messages import REQUESTS, Exit, Request
from kerneltrials.verifier.protocol._wire import from_wire, to_wire

MAX_FRAME_BYTES = 64 * 1024 * 1024
HELLO_OP = "hello"
_HEADER = struct.Struct(">I")


class ChannelClosed(ConnectionError):
    """The peer closed the channel (a worker that exited or was killed)."""


class ChannelTimeout(TimeoutError):
    """No complete frame arrived in time."""


class MalformedFrame(ValueError):
    """A frame that no genuine peer sends: oversized, not JSON, or not a JSON object."""


class WorkerFault(Exception):
    """A failure with a kind the parent maps to a verdict (e.g. ``compile_error``)."""

    def __init__(self, kind: str, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.detail = detail


@dataclass(frozen=True)
class Failure:
    """A worker's reply when an operation failed (``ok: false``)."""

    kind: str
    message: str
    detail: str = ""


def send_frame(sock: socket.socket, payload: dict[str, Any]) -> None:
    data = json.dumps(payload, allow_nan=True).encode()
    sock.sendall(_HEADER.pack(len(data)) + data)


#: The longest single wait for a frame: between waits a pending interrupt (an ``eval``
#: being stopped, a Ray task cancelled) surfaces, however long the frame's budget.
_WAIT_SLICE_S = 0.5


def _wait_readable(sock: socket.socket, deadline: float | None) -> None:
    if sock.fileno() < 0:  # closed on this side (the job was finished meanwhile)
        raise ChannelClosed("the channel is closed")
    while True:
        wait_s = _WAIT_SLICE_S if deadline is None else min(deadline - time.monotonic(),
                                                            _WAIT_SLICE_S)
        if wait_s <= 0:
            raise ChannelTimeout("no reply from worker in time")
        if select.select([sock], [], [], wait_s)[0]:
            return


def _read_exactly(sock: socket.socket, size: int, deadline: float | None) -> bytes:
    chunks, remaining = [], size
    while remaining:
        _wait_readable(sock, deadline)
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
    except RecursionError:  # the parser recurses once per level: a peer chooses the depth
        raise MalformedFrame("frame nests deeper than the parser goes") from None
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
    sock = open_worker_channel()
    os.environ.pop(CHANNEL_ENV, None)
    return sock


@dataclass(frozen=True)
class Handler:
    """What a worker does for one ``op``: the request type it parses and the function."""

    request: type[Request[Any]]
    function: Callable[[Any, Any], Any]


_perf_counter_ns = time.perf_counter_ns  # bound before any candidate code runs


def _answer(handlers: Mapping[str, Handler], state: Any, frame: dict[str, Any]) -> dict[str, Any]:
    op = frame.get("op")
    handler = handlers.get(op) if isinstance(op, str) else None
    if handler is None:
        raise WorkerFault("protocol", f"unknown op {op!r}")
    request = from_wire(handler.request, {k: v for k, v in frame.items() if k != "op"})
    return {"ok": True, **to_wire(handler.function(state, request))}


def _reply(handlers: Mapping[str, Handler], state: Any, frame: dict[str, Any]) -> dict[str, Any]:
    try:
        return _answer(handlers, state, frame)
    except WorkerFault as fault:
        failure = Failure(fault.kind, str(fault), fault.detail)
    except Exception as error:  # the candidate's exception, or our bug: the parent decides
        failure = Failure("exception", f"{type(error).__name__}: {error}",
                          traceback.format_exc(limit=20))
    return {"ok": False, **to_wire(failure)}


def serve(state: Any, handlers: Mapping[str, Handler], warm_up: Callable[[], None]) -> None:
    """Answer requests on this process's channel until ``exit``: the hello first (after
    ``warm_up``), then one reply per request, each echoing the job's nonce."""
    sock = open_channel_from_env()
    try:  # the nonce arrives on the channel, never through the environment
        nonce = recv_hello(sock)
    except ConnectionError:
        return
    warm_up()
    # Ready: the parent starts timing requests from here (Python and torch are loaded).
    send_frame(sock, {"ok": True, "op": HELLO_OP, "nonce": nonce})
    while True:
        try:
            frame = recv_frame(sock)
        except ConnectionError:
            return
        started = _perf_counter_ns()
        reply = _reply(handlers, state, frame)
        reply["nonce"] = nonce
        reply["worker_ms"] = (_perf_counter_ns() - started) / 1e6
        send_frame(sock, reply)
        if frame.get("op") == Exit.op:
            exit_now()


def exit_now() -> None:
    """Leave without Python's finalisation: everything the parent needs was sent, and
    tearing down torch, its thread pools and loaded extensions takes seconds per worker,
    on every verification."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(0)


def parse_request(frame: dict[str, Any]) -> Request[Any]:
    """A request frame as its typed request (for tests and tools)."""
    return from_wire(REQUESTS[str(frame.get("op"))], {k: v for k, v in frame.items() if k != "op"})
