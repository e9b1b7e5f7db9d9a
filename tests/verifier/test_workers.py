"""Worker lifetimes: started early, closed cleanly, never waited on when unused."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest

from kerneltrials._pids import pid_alive
from kerneltrials.sandbox import SandboxLimits, resolve_sandbox
from kerneltrials.verifier import Status
from kerneltrials.verifier.harness._failures import candidate_failure
from kerneltrials.verifier.harness._jobs import WindowBroken, WorkerFailed, WorkerJob
from kerneltrials.verifier.protocol import Empty, Request

pytestmark = pytest.mark.timeout(120)


@dataclass(frozen=True)
class NoSuchOp(Request[Empty]):
    op: ClassVar[str] = "no_such_op"
    reply_type: ClassVar[type[Any]] = Empty


def _worker(tmp_path: Path, role: str) -> WorkerJob:
    return WorkerJob(resolve_sandbox("process"), role, tmp_path, [],
                     SandboxLimits(wall_timeout_s=60.0))


def test_a_worker_that_was_never_asked_anything_is_killed_on_close(tmp_path: Path) -> None:
    # The run stage's workers start before the build; a compile error leaves them unused.
    worker = _worker(tmp_path, "reference")
    pid = worker.process.popen.pid  # type: ignore[attr-defined]

    info = worker.close()

    assert info.signal == 9, info.describe()
    assert not pid_alive(pid)


def test_a_used_worker_exits_on_request_with_status_zero(tmp_path: Path) -> None:
    worker = _worker(tmp_path, "candidate")
    with pytest.raises(WorkerFailed, match="unknown op"):  # ready, then refuses a bad op
        worker.request(NoSuchOp(), 60.0)

    info = worker.close()

    assert (info.returncode, info.signal, info.timed_out) == (0, None, False), info.describe()


def test_the_visible_gpu_is_the_first_of_cuda_visible_devices(monkeypatch) -> None:
    from kerneltrials.verifier.harness._session import visible_gpu_index

    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3,1")
    assert visible_gpu_index() == 3
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "GPU-5f2a")  # by UUID: the host's first
    assert visible_gpu_index() == 0
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES")
    assert visible_gpu_index() == 0


def _frozen_worker(tmp_path: Path) -> WorkerJob:
    worker = WorkerJob(resolve_sandbox("process"), "candidate", tmp_path, [],
                       SandboxLimits(wall_timeout_s=60.0), freeze_at_rest=True)
    if not worker.freeze_at_rest:
        worker.close()
        pytest.skip(f"no freezer for jobs here ({worker.process.isolation.get('freezer')})")
    return worker


def test_a_worker_frozen_at_rest_answers_and_exits(tmp_path: Path) -> None:
    worker = _frozen_worker(tmp_path)
    for _ in range(2):  # a failure reply is a reply: the job is frozen again after it
        with pytest.raises(WorkerFailed, match="unknown op"):
            worker.request(NoSuchOp(), 60.0)
        assert worker.process.is_frozen
        assert worker.window_s > 0
    assert worker.rest.freezes == 3  # after hello and after each request
    assert worker.rest.cpu_s < 0.05, worker.rest.summary()

    info = worker.close()  # thawed to exit: not killed

    assert (info.returncode, info.signal) == (0, None), info.describe()


def test_cpu_used_while_frozen_is_the_harness_failure(tmp_path: Path, monkeypatch) -> None:
    worker = _frozen_worker(tmp_path)
    with pytest.raises(WorkerFailed):
        worker.request(NoSuchOp(), 60.0)
    account = worker.process.cpu_time_s()
    if account is None:
        worker.close()
        pytest.skip("no CPU account for jobs here")
    # As if a task had escaped the freezer: the job's cgroup accounted a second meanwhile.
    monkeypatch.setattr(worker.process, "cpu_time_s", lambda: account + 1.0)

    with pytest.raises(WindowBroken, match="harness:freezer_leak") as caught:
        worker.request(NoSuchOp(), 60.0)
    outcome = candidate_failure(caught.value, "test")

    assert outcome.status == Status.ERROR and outcome.reasons[0].startswith("harness:freezer_leak")
    worker.close()


def test_a_reference_worker_that_died_says_its_last_stderr_line_in_the_error() -> None:
    from kerneltrials.sandbox import ExitInfo
    from kerneltrials.verifier.harness._failures import reference_failure
    from kerneltrials.verifier.harness._jobs import JobDied
    from kerneltrials.verifier.harness._session import Outcome

    said = "OMP: Error #34: System unable to allocate necessary resources for OMP thread:"
    died = JobDied("reference", ExitInfo(returncode=None, signal=6,
                                         stderr=f"importing torch\n{said}\n\n"), "startup")
    outcome = reference_failure(died, "L1/relu")
    assert isinstance(outcome, Outcome) and outcome.status == Status.ERROR
    assert outcome.reasons == [("harness:reference worker killed by signal 6 (SIGABRT) during "
                                f"startup (its stderr ends: {said})")]
    silent = reference_failure(JobDied("reference", ExitInfo(returncode=None, signal=6), "setup"),
                               "L1/relu")
    assert isinstance(silent, Outcome)
    assert silent.reasons == ["harness:reference worker killed by signal 6 (SIGABRT) during setup"]
