"""Worker lifetimes: started early, closed cleanly, never waited on when unused."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest

from kerneltrials._pids import pid_alive
from kerneltrials.sandbox import SandboxLimits, resolve_sandbox
from kerneltrials.verifier.harness._jobs import WorkerFailed, WorkerJob
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
