"""The collect job's operation: import the candidate with ``load_inline`` intercepted and
return the requests it made.

This runs the candidate's module-level Python, so its reply is attacker-controlled data
the parent checks field by field (``build/_jobs.validate_requests``); the job sees no
cache (docs/design/builds.md).
"""

from __future__ import annotations

from pathlib import Path

from kerneltrials.verifier import protocol as wire
from kerneltrials.verifier.protocol import WorkerFault
from kerneltrials.verifier.worker._intercept import collect_build_requests
from kerneltrials.verifier.worker._state import WorkerState, format_exc


def collect_op(state: WorkerState, request: wire.Collect) -> wire.Collected:
    """Import the candidate with ``load_inline`` intercepted; the requests it made."""
    if state.role != "collect":
        raise WorkerFault("protocol", "only a collect worker imports a candidate to build it")
    try:
        requests = collect_build_requests(Path(request.candidate), request.backend)
    except Exception as error:
        raise WorkerFault("import_error", f"{type(error).__name__}: {error}", format_exc()) from error
    return wire.Collected(requests=[item.to_dict() for item in requests])
