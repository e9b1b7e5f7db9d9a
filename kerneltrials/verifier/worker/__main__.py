"""The worker process: collects or compiles a build, runs the reference, or runs a
candidate, on request.

Started by the parent inside a sandbox as ``python -m kerneltrials.verifier._worker
ROLE``. It answers frames on its private channel (see ``_protocol``); tensors go
through files. The ``reference`` and ``compile`` roles never import a candidate, so
reference outputs, baseline timings and compiled libraries cannot be touched by
candidate Python (DESIGN.md, trust boundary; docs/design/builds.md).
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from typing import Any

from kerneltrials.verifier._faults import WorkerFault

# Timers, the channel and the timing loop are bound before any candidate code runs.
from kerneltrials.verifier._protocol import (
    open_channel_from_env,
    recv_frame,
    recv_hello,
    send_frame,
)

_perf_counter_ns = time.perf_counter_ns


def _handle(state: Any, request: dict[str, Any]) -> dict[str, Any]:
    from kerneltrials.verifier import _worker_ops

    handler = _worker_ops.HANDLERS.get(request.get("op", ""))
    if handler is None:
        raise WorkerFault("protocol", f"unknown op {request.get('op')!r}")
    return handler(state, request)


def serve(role: str) -> None:
    sock = open_channel_from_env()
    try:  # the nonce arrives on the channel, never through the environment
        nonce = recv_hello(sock)
    except ConnectionError:
        return
    from kerneltrials.verifier._worker_ops import WorkerState, warm_up

    warm_up(role)
    # Ready: the parent starts timing requests from here (Python and torch are loaded).
    send_frame(sock, {"ok": True, "op": "hello", "nonce": nonce})
    state = WorkerState(role=role)
    while True:
        try:
            request = recv_frame(sock)
        except ConnectionError:
            return
        started = _perf_counter_ns()
        try:
            reply: dict[str, Any] = {"ok": True, **_handle(state, request)}
        except WorkerFault as fault:
            reply = {"ok": False, "kind": fault.kind, "message": str(fault), "detail": fault.detail}
        except Exception as error:  # the candidate's exception, or our bug: the parent decides
            reply = {"ok": False, "kind": "exception", "message": f"{type(error).__name__}: {error}",
                     "detail": traceback.format_exc(limit=20)}
        reply["nonce"] = nonce
        reply["worker_ms"] = (_perf_counter_ns() - started) / 1e6
        send_frame(sock, reply)
        if request.get("op") == "exit":
            _exit_now()


def _exit_now() -> None:
    """Leave without Python's finalisation: everything the parent needs was sent, and
    tearing down torch, its thread pools and loaded extensions takes seconds per worker,
    on every verification."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(0)


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    role = args[0] if args else ""
    if role not in {"collect", "compile", "reference", "candidate"}:
        raise SystemExit("usage: python -m kerneltrials.verifier._worker "
                         "collect|compile|reference|candidate")
    serve(role)


if __name__ == "__main__":
    main()
