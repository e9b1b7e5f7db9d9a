"""The peer of a connected unix socket, from the kernel (``NETLINK_SOCK_DIAG``).

The docker backend's channel is a unix socket the worker connected to from inside its
container: the parent's accepted end is known, the worker's end is not. The kernel's
socket diagnostics name the peer's inode (``UDIAG_SHOW_PEER``, as ``ss -xp`` shows it),
which ``/proc/<pid>/fd`` of the container's processes then match. An accepted socket
belongs to the network namespace of the process that connected (the kernel creates it in
the client's), so the query is made from the container's namespace: a short-lived thread
of the harness joins it (``setns``, root only) just to open the netlink socket. See
docs/design/sandbox.md ("Measuring a job from outside").
"""

from __future__ import annotations

import ctypes
import socket
import struct
import threading

_NETLINK_SOCK_DIAG = 4
_SOCK_DIAG_BY_FAMILY = 20
_NLM_F_REQUEST = 1
_NLMSG_ERROR = 2
_UDIAG_SHOW_PEER = 4
_UNIX_DIAG_PEER = 2
_NO_COOKIE = 0xFFFFFFFF
_HEADER = struct.Struct("=IHHII")  # struct nlmsghdr
_REQUEST = struct.Struct("=BBHIIIII")  # struct unix_diag_req
_MESSAGE_BYTES = 16  # struct unix_diag_msg, before its attributes


def unix_peer_inode(inode: int, netns_pid: int | None = None) -> int | None:
    """The inode of the peer of unix socket ``inode``, which lives in the network namespace
    of ``netns_pid`` (default: ours); ``None`` when the kernel has no socket diagnostics,
    the namespace cannot be joined, the socket is gone or it has no peer."""
    request = _REQUEST.pack(
        socket.AF_UNIX, 0, 0, 0xFFFFFFFF, inode, _UDIAG_SHOW_PEER, _NO_COOKIE, _NO_COOKIE
    )
    header = _HEADER.pack(_HEADER.size + len(request), _SOCK_DIAG_BY_FAMILY, _NLM_F_REQUEST, 1, 0)
    diag = _diag_socket(netns_pid)
    if diag is None:
        return None
    try:
        with diag:
            diag.settimeout(2.0)
            diag.sendto(header + request, (0, 0))
            reply = diag.recv(8192)
    except OSError:
        return None
    if len(reply) < _HEADER.size:
        return None
    length, kind, _, _, _ = _HEADER.unpack_from(reply)
    if kind != _SOCK_DIAG_BY_FAMILY:
        return None  # NLMSG_ERROR: no such socket, or diagnostics not built in
    offset = _HEADER.size + _MESSAGE_BYTES
    while offset + 4 <= min(length, len(reply)):
        attribute_length, attribute = struct.unpack_from("=HH", reply, offset)
        if attribute == _UNIX_DIAG_PEER and attribute_length >= 8:
            peer: int = struct.unpack_from("=I", reply, offset + 4)[0]
            return peer or None
        if attribute_length < 4:
            break
        offset += (attribute_length + 3) & ~3
    return None


def _diag_socket(netns_pid: int | None) -> socket.socket | None:
    """A sock_diag socket of our network namespace or of ``netns_pid``'s."""
    if netns_pid is None:
        try:
            return socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, _NETLINK_SOCK_DIAG)
        except OSError:
            return None
    made: list[socket.socket] = []

    def open_inside() -> None:
        # setns changes this thread's namespace only; the thread ends right after, so no
        # other code of the harness ever runs in the container's namespace.
        libc = ctypes.CDLL(None, use_errno=True)
        try:
            with open(f"/proc/{netns_pid}/ns/net", "rb") as namespace:
                if libc.setns(namespace.fileno(), _CLONE_NEWNET) != 0:
                    return
            made.append(socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, _NETLINK_SOCK_DIAG))
        except OSError:
            return

    thread = threading.Thread(target=open_inside, name="kt-sockdiag-netns")
    thread.start()
    thread.join()
    return made[0] if made else None


_CLONE_NEWNET = 0x40000000
