"""The build operations of a worker: ``collect`` (import the candidate, record its
``load_inline`` calls) and ``compile`` (one request into a private output directory).

They run in different jobs. The collect job runs the candidate's module-level Python, so
its reply is attacker-controlled data the parent checks field by field; it sees no
cache. The compile job never imports the candidate: it gets one request from the parent
and writes only under its output directory (docs/design/builds.md).
"""

from __future__ import annotations

import traceback
from pathlib import Path
from typing import Any

from kerneltrials.verifier._build import BuildRequest, CompileError, CpuTimeExceeded
from kerneltrials.verifier._faults import WorkerFault


def collect_op(state: Any, request: dict[str, Any]) -> dict[str, Any]:
    """Import the candidate with ``load_inline`` intercepted; the requests it made."""
    from kerneltrials.verifier._intercept import collect_build_requests

    if state.role != "collect":
        raise WorkerFault("protocol", "only a collect worker imports a candidate to build it")
    try:
        requests = collect_build_requests(Path(request["candidate"]), request["backend"])
    except Exception as error:
        raise WorkerFault("import_error", f"{type(error).__name__}: {error}",
                          traceback.format_exc(limit=12)) from error
    return {"requests": [item.to_dict() for item in requests]}


def compile_op(state: Any, request: dict[str, Any]) -> dict[str, Any]:
    """Compile the parent's request into ``out_dir`` (no candidate code runs here)."""
    from kerneltrials.verifier._compile_job import compile_into
    from kerneltrials.verifier._fastbuild import FastPlan

    if state.role != "compile":
        raise WorkerFault("protocol", "only a compile worker compiles")
    build_request = BuildRequest.from_dict(request["request"])
    plan = FastPlan(**request["fast"]) if request.get("fast") else None
    try:
        details = compile_into(build_request, request["module_name"], Path(request["out_dir"]),
                               plan, dict(request.get("details") or {}))
    except CpuTimeExceeded as error:
        raise WorkerFault("cpu_time_limit", str(error)) from error
    except CompileError as error:
        raise WorkerFault("compile_error", str(error), error.log) from error
    return {"details": details}
