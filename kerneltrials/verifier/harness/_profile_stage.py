"""The optional profile stage: after a correct verdict, where does the candidate's time go."""

from __future__ import annotations

from typing import Any

from kerneltrials.sandbox import SandboxStartError
from kerneltrials.verifier import protocol as wire
from kerneltrials.verifier.harness._candidate_files import TamperedFile, read_candidate_text
from kerneltrials.verifier.harness._jobs import ForgedReply, JobDied, WorkerFailed, WorkerJob
from kerneltrials.verifier.harness._nsight import (
    find_ncu,
    ncu_note,
    ncu_wrapper,
    parse_ncu_csv,
    with_ncu,
)
from kerneltrials.verifier.harness._profiling import start_perf, stop_perf, summarise_profile
from kerneltrials.verifier.harness._session import Session
from kerneltrials.verifier.harness._stages import (
    load_candidate_request,
    load_task_request,
    setup_request,
)

#: How long ncu may take to write its report once the profiled worker has exited.
NCU_REPORT_WAIT_S = 120.0
#: A larger report is not read: a few calls' metrics are kilobytes.
NCU_REPORT_MAX_BYTES = 64 * 1024**2
#: The calls Nsight Compute measures: it replays each kernel launch many times, so few.
NCU_CALLS = 2


def profile_stage(session: Session, candidate: WorkerJob) -> dict[str, Any]:
    """Profile the first configuration; a failure here only leaves a note. On the cuda
    backend with Nsight Compute installed, its per-kernel counters are added."""
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
    profile = summarise_profile([wire.to_wire(row) for row in reply.top_ops], counters, note,
                                tool)
    ncu = find_ncu() if session.options.backend == "cuda" else None
    if ncu is None:
        return profile
    text, failure = _ncu_report(session, ncu)
    kernels = parse_ncu_csv(text)
    return with_ncu(profile, kernels, failure or ncu_note(text, kernels))


def _ncu_report(session: Session, ncu: str) -> tuple[str, str]:
    """Nsight Compute's CSV over the candidate's calls on the first configuration, from
    one more candidate worker started under it; and why there is none, if so."""
    report = session.path("candidate-out", "ncu-report.csv")
    config = session.configs[0]
    timeout = session.options.call_timeout_s
    try:
        job = session.start_worker("candidate", session.options.run_timeout_s,
                                   wrapper=ncu_wrapper(ncu, report))
    except SandboxStartError as error:
        return "", f"Nsight Compute not run: {error}"
    try:
        job.request(load_task_request(session), timeout)
        job.request(load_candidate_request(session), timeout)
        job.request(setup_request(session, config, pool_size=1), timeout)
        # ncu replays every launch to collect its counters: far slower than a timed call
        job.request(wire.Profile(config=config.name, calls=NCU_CALLS, device_range=True),
                    timeout * 10)
    except (WorkerFailed, JobDied, ForgedReply) as error:
        job.process.kill()
        return "", f"Nsight Compute run failed: {error}"
    job.ask_to_exit()  # ncu writes its report when its target has exited
    job.exit_info = job.process.wait(timeout_s=NCU_REPORT_WAIT_S) or job.process.kill()
    try:  # written inside the candidate's job: its code may have put anything there
        return read_candidate_text(report, NCU_REPORT_MAX_BYTES), ""
    except TamperedFile as error:
        return "", f"Nsight Compute's report was replaced by {error}"
    except OSError:
        return "", "Nsight Compute wrote no report"
