"""The optional profile stage: after a correct verdict, where does the candidate's time go."""

from __future__ import annotations

from typing import Any

from kerneltrials.verifier import protocol as wire
from kerneltrials.verifier.harness._jobs import ForgedReply, JobDied, WorkerFailed, WorkerJob
from kerneltrials.verifier.harness._profiling import start_perf, stop_perf, summarise_profile
from kerneltrials.verifier.harness._session import Session


def profile_stage(session: Session, candidate: WorkerJob) -> dict[str, Any]:
    """Profile the first configuration; a failure here only leaves a note."""
    config = session.configs[0].name
    pid = getattr(getattr(candidate.process, "popen", None), "pid", None)
    perf = start_perf(pid) if session.options.backend == "cpu" and pid else None
    try:
        reply = candidate.request(wire.Profile(config=config, calls=3),
                                  session.options.call_timeout_s)
    except (WorkerFailed, JobDied, ForgedReply) as error:
        stop_perf(perf)
        return {"tool": "none", "top_ops": [], "note": f"profiling failed: {error}"}
    counters, note = stop_perf(perf) if session.options.backend == "cpu" else ({}, "")
    tool = "perf+torch.profiler" if counters else "torch.profiler"
    return summarise_profile([wire.to_wire(row) for row in reply.top_ops], counters, note, tool)
