"""Whose failure it was: a worker's failure, mapped to the candidate's verdict or to the
task's or the harness's (``error``, never charged to the candidate)."""

from __future__ import annotations

import os

from kerneltrials._cpuinfo import usable_cores
from kerneltrials.sandbox import ExitInfo
from kerneltrials.sandbox._env import trim
from kerneltrials.tasks import TaskError
from kerneltrials.verifier.harness._jobs import (
    STARTUP,
    ForgedReply,
    JobDied,
    WindowBroken,
    WorkerFailed,
)
from kerneltrials.verifier.harness._sanitize import sanitize_candidate_text
from kerneltrials.verifier.harness._session import Outcome
from kerneltrials.verifier.verdict import Status

#: A compile job's wall-clock timeout is the machine's fault when it got less CPU than
#: this share of the wall time it ran, while the run queue held at least this per core.
OVERLOAD_CPU_SHARE = 0.5
OVERLOAD_LOAD_PER_CORE = 1.0

_FAILURE_STATUS = {
    "compile_error": Status.COMPILE_ERROR,
    "import_error": Status.RUNTIME_ERROR,
    "candidate_exception": Status.RUNTIME_ERROR,
    "no_kernel": Status.REJECTED,
    "no_model_new": Status.REJECTED,
}
_FAILURE_REASON = {
    "compile_error": "build:compile_error",
    "import_error": "runtime:import_error",
    "candidate_exception": "runtime:exception",
    "no_kernel": "static:no_custom_kernel",
    "no_model_new": "static:no_model_new",
}


def candidate_failure(error: Exception, stage: str) -> Outcome:
    """Map a failure of a candidate-side worker to the candidate's verdict."""
    if isinstance(error, WindowBroken):  # the freezer failed: the harness's, not the candidate's
        return Outcome(Status.ERROR, error.reason)
    if isinstance(error, ForgedReply):
        return Outcome(Status.REJECTED,
                       f"integrity:forged_channel_frame:{sanitize_candidate_text(str(error), 300)}")
    if isinstance(error, JobDied) and error.during == STARTUP:
        # No candidate code runs before a worker's hello (the candidate's module is
        # imported on a later request): a worker that cannot start is the harness's.
        return Outcome(Status.ERROR, f"harness:worker_startup:{error.role} worker "
                                     f"{error.exit_info.describe()} during {stage}")
    if isinstance(error, JobDied):
        info = error.exit_info
        output = sanitize_candidate_text(info.stderr.strip(), 1500)  # the candidate's text
        detail = f"{stage}:{info.describe()} during {error.during}" + (f"\n{output}" if output else "")
        status = Status.TIMEOUT if info.timed_out else Status.RUNTIME_ERROR
        return Outcome(status, f"{'timeout' if info.timed_out else 'runtime'}:{detail}")
    if isinstance(error, WorkerFailed):
        status = _FAILURE_STATUS.get(error.kind, Status.RUNTIME_ERROR)
        reason = _FAILURE_REASON.get(error.kind, f"runtime:{error.kind}")
        detail = sanitize_candidate_text(error.detail.strip() or str(error), 3000)
        return Outcome(status, f"{reason}:{error}" + (f"\n{detail}" if detail else ""))
    raise error


def reference_failure(error: Exception, task_path: str) -> Exception:
    """A failing reference is the task's problem (exit 2) or the harness's (``error``)."""
    if isinstance(error, WorkerFailed) and error.kind == "task_error":
        return TaskError(task_path, f"{error}\n{trim(error.detail, 2000)}".strip())
    if isinstance(error, JobDied):
        said = last_words(error.exit_info.stderr)
        return Outcome(Status.ERROR, f"harness:reference worker {error.exit_info.describe()} "
                                     f"during {error.during}"
                                     + (f" (its stderr ends: {said})" if said else ""))
    return Outcome(Status.ERROR, f"harness:reference worker failed: {error}")


def last_words(stderr: str, limit: int = 300) -> str:
    """The last non-empty line of a dead trusted worker's stderr, at most ``limit``
    characters: what the machine's failure was (a worker aborted at startup said nothing
    else in the verdict). Never used for a job that ran candidate code."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return lines[-1][:limit] if lines else ""


def is_overloaded(exit_info: ExitInfo, wall_s: float, load_per_core: float) -> bool:
    """A wall-clock timeout on a loaded machine while the job got little CPU."""
    cpu_s = exit_info.cpu_time_s  # None where the sandbox cannot account it
    return (exit_info.timed_out and cpu_s is not None and wall_s > 0
            and cpu_s < OVERLOAD_CPU_SHARE * wall_s and load_per_core >= OVERLOAD_LOAD_PER_CORE)


def compile_failure(error: Exception, wall_s: float, cpu_limit_s: int | None,
                    load_per_core: float | None = None) -> Outcome:
    """The verdict for a compile job that ended without its outputs: a compiler past the
    CPU-time limit is the candidate's ``timeout``; a wall clock that ran out on a loaded
    machine while the job got little CPU is the machine's (``error``, retried by eval)."""
    limit = f"cpu time limit of {cpu_limit_s} s exceeded"
    if isinstance(error, WorkerFailed) and error.kind == "cpu_time_limit":
        return Outcome(Status.TIMEOUT, f"timeout:build:{limit} ({error})")
    if isinstance(error, JobDied):
        info = error.exit_info
        if info.cpu_limit_hit:
            return Outcome(Status.TIMEOUT, f"timeout:build:{limit}")
        if load_per_core is None:
            load_per_core = os.getloadavg()[0] / usable_cores()
        if is_overloaded(info, wall_s, load_per_core):
            return Outcome(Status.ERROR, f"harness:build_overloaded:the compile job's wall clock "
                                         f"ran out after {wall_s:.0f} s with "
                                         f"{info.cpu_time_s or 0:.0f} s of CPU "
                                         f"(load {load_per_core:.1f} per core)")
    return candidate_failure(error, "build")
