"""The timing loop's GPU guarantees, measured on the device rather than assumed."""

from __future__ import annotations

import statistics

import pytest
import torch

from kerneltrials.verifier import Status
from kerneltrials.verifier.worker._timing import make_device_ops, time_calls
from tests.gpu import sources
from tests.gpu._checks import check_cuda, summary


def _event_ms(function, before=None, repeats: int = 30) -> float:
    times = []
    for _ in range(repeats):
        if before is not None:
            before()
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        function()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


@pytest.mark.timeout(300)
def test_l2_flush_makes_a_cached_buffer_cold(figures) -> None:
    """A read of a buffer that fits in L2 is slower right after the flush than when
    repeated hot: the flush really evicts."""
    ops = make_device_ops("cuda")
    l2_bytes = torch.cuda.get_device_properties(0).L2_cache_size
    # Random gathers from a buffer that fits in L2 with its index and output (an eighth
    # of L2 each, the index twice that): latency-bound reads, cheap from L2, dear from
    # memory. Repeated they run hot; right after the flush they must run cold.
    source = torch.randn(max(1, l2_bytes // 8 // 4), device="cuda")
    index = torch.randperm(source.numel(), device="cuda")
    hot = _event_ms(lambda: source[index], repeats=50)
    cold = _event_ms(lambda: source[index], before=ops.flush, repeats=50)
    figures(kind="l2_flush", l2_bytes=l2_bytes, buffer_bytes=source.numel() * 4,
            hot_ms=hot, cold_ms=cold, ratio=cold / hot)
    assert cold > hot * 1.15, (hot, cold)


def _spin_on_side_stream(x: torch.Tensor) -> torch.Tensor:
    """Returns at once; the real work (a long chain of ops) runs on a non-blocking stream
    nobody joins, so it finishes after the caller's timer would stop."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        y = x
        for _ in range(200):
            y = torch.sin(y)
    return x


@pytest.mark.timeout(300)
def test_timed_call_includes_work_left_on_another_stream(figures) -> None:
    ops = make_device_ops("cuda")
    x = torch.randn(1 << 24, device="cuda")
    side_alone = _event_ms(lambda: _sync_after(_spin_on_side_stream, x), repeats=5)
    measured = statistics.median(time_calls(_spin_on_side_stream, [[x]], 5, ops))
    figures(kind="streams", side_stream_work_ms=side_alone, measured_ms=measured)
    assert measured >= 0.8 * side_alone, (measured, side_alone)


def _sync_after(function, x: torch.Tensor) -> None:
    function(x)
    torch.cuda.synchronize()


@pytest.mark.timeout(600)
def test_eager_and_compile_baselines_are_timed_beside_the_candidate(figures) -> None:
    """Both baselines are sides of the reference worker (``Side("eager"|"compile",
    reference)``): the candidate's process never compiles or runs them. On the device,
    each must give a time on every configuration and a speedup."""
    verdict = check_cuda("L1/relu", sources.relu_work(0), compile_baseline=True)
    figures(kind="baselines", speedup_compile=verdict.speedup_compile, **summary(verdict))
    assert verdict.status == Status.CORRECT, verdict.reasons
    assert verdict.speedup is not None and verdict.speedup_compile is not None
    for config in verdict.configs:
        assert config.times_ms["eager"].median > 0, config.name
        assert config.times_ms["compile"].median > 0, config.name
