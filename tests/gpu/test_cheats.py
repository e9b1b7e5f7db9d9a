"""The GPU cheats: each ``rejected`` or ``incorrect`` on a real device.

The reason codes are recorded in the acceptance report; the assertion is on the status,
plus, for the cheats the README names a code for, the code's prefix.
"""

from __future__ import annotations

import pytest

from kerneltrials.verifier import Status
from tests.gpu import sources
from tests.gpu._checks import check_cuda, summary

CAUGHT = {Status.REJECTED, Status.INCORRECT}
CASES = {
    "side_stream": ("L1/relu", sources.CHEATS["side_stream"], "cpp:side_stream:"),
    "result_reuse": ("L1/relu", sources.CHEATS["result_reuse"], None),
    "recycled_memory": ("L1/relu", sources.CHEATS["recycled_memory"], "integrity:stale_output"),
    "skip_large_grid": ("L1/relu", sources.CHEATS["skip_large_grid"], "correctness:"),
    "tf32_at_run_time": ("L1/matmul_square", sources.TF32_MATMUL, None),
    "cublas": ("L1/matmul_square", sources.CUBLAS_MATMUL, "cpp:library_compute:"),
}


@pytest.mark.timeout(600)
@pytest.mark.parametrize("label", sorted(CASES))
def test_gpu_cheat_is_caught(label: str, figures) -> None:
    task, source, reason_prefix = CASES[label]
    verdict = check_cuda(task, source)
    figures(kind="cheat", label=label, task=task, **summary(verdict))
    assert verdict.status in CAUGHT, (verdict.status, verdict.reasons)
    if reason_prefix is not None:
        assert any(reason.startswith(reason_prefix) for reason in verdict.reasons), verdict.reasons


@pytest.mark.timeout(600)
def test_side_stream_work_is_inside_the_measured_time(figures) -> None:
    """With the source scans off, work on a never-joined stream is still timed: the
    measurement waits for every stream of the device (docs/design/timing.md)."""
    honest = check_cuda("L1/relu", sources.relu_work(0), source_scans=False)
    side = check_cuda("L1/relu", sources.CHEATS["side_stream"], source_scans=False)
    figures(kind="side_stream_timing", honest=summary(honest), side_stream=summary(side))
    assert honest.status == Status.CORRECT, honest.reasons
    if side.status == Status.CORRECT:
        assert (side.speedup or 0) <= (honest.speedup or 0) * 1.25, (side.speedup, honest.speedup)
