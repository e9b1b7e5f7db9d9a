"""The private channel between the harness and a job's worker.

The parent always holds one end of a connected stream socket (``SandboxedProcess.channel``).
How the worker gets the other end depends on the backend, and is written into the job's
environment as ``KERNELTRIALS_CHANNEL``:

- ``fd:N``: the process backend passes an inherited socket descriptor (socketpair).
- ``unix:/path``: containers cannot inherit descriptors, so the parent listens on a unix
  socket in a private bind-mounted directory; the worker connects once, before it imports
  any candidate code, and the parent then removes the listener so nothing else can
  connect. A relay thread joins that connection to a socketpair, so the parent's end is a
  connected socket from the moment the job starts, exactly as with ``fd:N``.

See docs/design/sandbox.md.
"""

from __future__ import annotations

import os
import selectors
import socket
import struct
import threading
import time
from collections.abc import Mapping
from pathlib import Path

CHANNEL_ENV = "KERNELTRIALS_CHANNEL"


class ChannelError(RuntimeError):
    """The worker could not open its channel (a harness failure, not the candidate's)."""


def open_worker_channel(environ: Mapping[str, str] | None = None) -> socket.socket:
    """The worker's end of the private channel, from ``KERNELTRIALS_CHANNEL``.

    Accepts ``fd:N`` (an inherited connected socket) and ``unix:/path`` (connects to the
    parent's listener). The returned socket is blocking and not inherited by children the
    candidate may start. The caller still removes the variable from ``os.environ``.

    Raises:
        ChannelError: the variable is missing or malformed, or the socket cannot be opened.
    """
    environ = os.environ if environ is None else environ
    value = environ.get(CHANNEL_ENV, "")
    kind, _, address = value.partition(":")
    try:
        if kind == "fd" and address.isdigit():
            channel = socket.socket(fileno=int(address))
        elif kind == "unix" and address:
            channel = _connect_unix(address)
        else:
            raise ChannelError(
                f"{CHANNEL_ENV}={value!r}: expected 'fd:N' or 'unix:/path' "
                "(run the worker through a kerneltrials sandbox)"
            )
    except OSError as error:
        raise ChannelError(f"cannot open channel {value!r}: {error}") from error
    channel.set_inheritable(False)
    channel.setblocking(True)
    return channel


def _connect_unix(path: str, attempts: int = 50) -> socket.socket:
    # The parent listens before the job starts; retries only cover a slow bind mount.
    for attempt in range(attempts):
        channel = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            channel.connect(path)
            return channel
        except (FileNotFoundError, ConnectionRefusedError):
            channel.close()
            if attempt == attempts - 1:
                raise
            time.sleep(0.02)
    raise AssertionError("unreachable")


class UnixChannelRelay:
    """Parent side of a ``unix:`` channel: listen, accept one worker, relay its bytes.

    ``parent_end`` is usable at once; bytes the worker sends appear on it after the worker
    connects. If the job ends without connecting, :meth:`close` gives the parent EOF.
    """

    def __init__(self, socket_dir: Path, name: str = "channel.sock") -> None:
        self.socket_path = socket_dir / name
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(str(self.socket_path))
        self._listener.listen(1)
        self.parent_end, self._relay_end = socket.socketpair()
        self._stop = threading.Event()
        self._connected = threading.Event()
        #: The accepted end's inode and the connecting process's host pid (SO_PEERCRED,
        #: as of connect), once the worker has connected: see ``DockerJob.channel_holder_pid``.
        self.accepted_inode: int | None = None
        self.connected_pid: int | None = None
        self._thread = threading.Thread(target=self._run, name="kt-channel-relay", daemon=True)
        self._thread.start()

    @property
    def address(self) -> str:
        return f"unix:{self.socket_path}"

    @property
    def connected(self) -> bool:
        """The worker has connected (its end's closing is then the parent's EOF)."""
        return self._connected.is_set()

    def _run(self) -> None:
        worker = self._accept_one()
        self._close_listener()
        if worker is None:
            self._relay_end.close()
            return
        with worker:
            _splice(worker, self._relay_end, self._stop)
        self._relay_end.close()

    def _accept_one(self) -> socket.socket | None:
        self._listener.settimeout(0.1)
        while not self._stop.is_set():
            try:
                worker, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return None
            worker.setblocking(True)
            self.accepted_inode = os.fstat(worker.fileno()).st_ino
            credentials = worker.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
            self.connected_pid = struct.unpack("=3i", credentials)[0] or None
            self._connected.set()
            return worker
        return None

    def _close_listener(self) -> None:
        self._listener.close()
        try:
            self.socket_path.unlink()
        except OSError:
            pass

    def close(self, drain_s: float = 1.0) -> None:
        """After the job ended: deliver what the worker wrote last, then give the parent EOF."""
        if self._connected.is_set():
            self._thread.join(drain_s)
        self._stop.set()
        self._thread.join(1.0)


def _splice(worker: socket.socket, relay: socket.socket, stop: threading.Event) -> None:
    """Copy bytes both ways until the worker's side is closed or ``stop`` is set."""
    peers = {worker: relay, relay: worker}
    selector = selectors.DefaultSelector()
    for end in peers:
        selector.register(end, selectors.EVENT_READ)
    open_ends = set(peers)
    while worker in open_ends and not stop.is_set():
        for key, _ in selector.select(timeout=0.1):
            source: socket.socket = key.fileobj  # type: ignore[assignment]
            try:
                data = source.recv(1 << 16)
            except OSError:
                data = b""
            target = peers[source]
            if data:
                try:
                    target.sendall(data)
                    continue
                except OSError:
                    pass
            selector.unregister(source)
            open_ends.discard(source)
            try:
                target.shutdown(socket.SHUT_WR)
            except OSError:
                pass
    selector.close()
