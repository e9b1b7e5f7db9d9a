"""The jobs this process started that may still run: an interrupted ``eval`` stops them
all at once (``stop_live_jobs``), whichever thread's verification owns each."""

from __future__ import annotations

import threading
import weakref

from kerneltrials.sandbox._base import SandboxedProcess

_LIVE: weakref.WeakSet[SandboxedProcess] = weakref.WeakSet()
_LOCK = threading.Lock()


def track(job: SandboxedProcess) -> SandboxedProcess:
    """Remember ``job`` until it is garbage (a finished job is stopped again harmlessly)."""
    with _LOCK:
        _LIVE.add(job)
    return job


def stop_live_jobs() -> int:
    """Kill the processes of every job this process started and has not collected; the
    thread that owns each job sees it die and records its end. Returns how many jobs."""
    with _LOCK:
        jobs = list(_LIVE)
    for job in jobs:
        job.stop_now()
    return len(jobs)
