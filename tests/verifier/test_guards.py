"""The runtime guards in process: the dispatch-level recorder, the kernel tracker's
poisoning, the integrity snapshot and the thread watch."""

from __future__ import annotations

import threading
import time
import types

import pytest
import torch

from kerneltrials.verifier.worker._guards import ComputeRecorder, KernelTracker, WatchedCalls
from kerneltrials.verifier.worker._integrity import (
    ThreadWatch,
    integrity_changes,
    integrity_snapshot,
)

pytestmark = pytest.mark.timeout(120)


def test_recorder_sees_compute_but_not_views_allocation_or_copies() -> None:
    x = torch.randn(8, 9)
    with ComputeRecorder() as recorder:
        y = torch.empty_like(x)
        y.copy_(x.reshape(-1).view(8, 9).t().contiguous().t())
        torch.relu_(y)
        z = (y * 2).sum()
    assert recorder.ops == {"aten.relu", "aten.mul", "aten.sum"}
    assert float(z) >= 0


@pytest.mark.slow  # builds (or loads from the cache) a small extension
def test_recorder_sees_aten_calls_made_from_a_cpp_extension() -> None:
    from kerneltrials.verifier.builds._compiler import build_extension
    from kerneltrials.verifier.protocol import BuildRequest
    from kerneltrials.verifier.worker._load_artifact import load_artifact
    from tests.verifier.corpus import ATEN_CPP, CORPUS_FLAGS

    request = BuildRequest.from_load_inline("cpu", name="aten", cpp_sources=[ATEN_CPP],
                                            functions=["relu_aten"], **CORPUS_FLAGS)
    module = load_artifact(build_extension(request))
    x = torch.randn(4)
    with ComputeRecorder() as recorder:
        module.relu_aten(x)
    assert recorder.ops == {"aten.relu"}


def _fake_extension() -> types.SimpleNamespace:
    def double(x: torch.Tensor) -> torch.Tensor:
        return x * 2

    def double_into(x: torch.Tensor, out: torch.Tensor) -> None:
        out.copy_(x * 2)

    return types.SimpleNamespace(double=double, double_into=double_into, size=3)


def test_tracker_counts_calls_and_poisons_one_output() -> None:
    tracker = KernelTracker(synchronize=lambda: None)
    ext = tracker.wrap_module(_fake_extension())
    assert ext.size == 3 and ext.double is ext.double
    x = torch.ones(4)
    tracker.reset(poison_index=1)
    first, second = ext.double(x), ext.double(x)
    assert tracker.names == ["double", "double"]
    assert torch.equal(first, torch.full((4,), 2.0)) and bool(second.isnan().all())
    assert tracker.poisoned_elements == 4
    tracker.reset(poison_index=0)
    ext.double(torch.ones(0))
    assert tracker.poisoned_elements == 0  # nothing to poison: the replay is no evidence


def test_tracker_poisons_out_parameters_the_call_wrote() -> None:
    tracker = KernelTracker(synchronize=lambda: None)
    ext = tracker.wrap_module(_fake_extension())
    x, out = torch.ones(4), torch.zeros(4)
    tracker.reset(poison_index=0)
    ext.double_into(x, out)
    assert bool(out.isnan().all()) and torch.equal(x, torch.ones(4))


def test_tracker_measures_the_time_inside_compiled_calls() -> None:
    tracker = KernelTracker(synchronize=lambda: None)
    ext = tracker.wrap_module(types.SimpleNamespace(wait=lambda: time.sleep(0.02)))
    tracker.reset(measure=True)
    ext.wait()
    assert tracker.inside_ns >= 15_000_000


def test_integrity_snapshot_names_patched_timers_and_changed_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    before = integrity_snapshot()
    assert integrity_changes(before, integrity_snapshot()) == []
    monkeypatch.setattr(time, "perf_counter", lambda: 0.0)
    monkeypatch.setattr(torch, "allclose", lambda *a, **k: True)
    monkeypatch.setattr(torch.backends.cudnn, "benchmark", not torch.backends.cudnn.benchmark)
    changes = integrity_changes(before, integrity_snapshot())
    assert "integrity:timer_patched:time.perf_counter" in changes
    assert "integrity:comparison_patched:torch.allclose" in changes
    assert any(c.startswith("integrity:global_state:torch.backends.cudnn.benchmark") for c in changes)


def test_integrity_snapshot_names_a_rebound_timed_input_builder(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The timing loop looks up ``fresh_inputs`` in its module for every timed call.
    from kerneltrials.verifier.worker import _timing

    before = integrity_snapshot()
    monkeypatch.setattr(_timing, "fresh_inputs", lambda inputs, bank, offset: list(inputs))
    changes = integrity_changes(before, integrity_snapshot())
    assert "integrity:harness_patched:_timing.fresh_inputs" in changes


def test_thread_watch_flags_threads_that_outlive_a_call() -> None:
    watch = ThreadWatch(pool_allowance=0)
    stop = threading.Event()
    worker = threading.Thread(target=stop.wait, daemon=True)
    worker.start()
    try:
        assert watch.check()[0].startswith("integrity:threads_spawned")
    finally:
        stop.set()
        worker.join()


@pytest.mark.parametrize(("role", "imports_dynamo"), [("reference", False), ("candidate", True)])
def test_only_the_candidates_worker_imports_dynamo_at_warm_up(role: str,
                                                              imports_dynamo: bool) -> None:
    # The candidate's: before its integrity snapshot, so a candidate importing dynamo does
    # not look like tampering. The reference's would only pay 1.5 s of CPU per check.
    import subprocess
    import sys

    probe = ("import sys; from kerneltrials.verifier.worker._ops import warm_up; "
             f"warm_up({role!r}); print('torch._dynamo' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            timeout=100)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == str(imports_dynamo)


def test_the_reference_recorder_records_as_the_candidates_does() -> None:
    from kerneltrials.verifier.worker._guards import ReferenceRecorder

    for recorder in (ComputeRecorder(), ReferenceRecorder()):
        with recorder:
            torch.ones(3).add(1).relu().view(3, 1)
        assert recorder.ops == {"aten.add", "aten.relu"}


def test_one_watch_records_every_call_and_reports_a_call_that_popped_it() -> None:
    from torch.utils._python_dispatch import _get_current_dispatch_mode_stack, _pop_mode

    watch = WatchedCalls()
    with watch.call():
        torch.ones(2).relu()
    with watch.call():
        torch.ones(2).sigmoid()
    assert watch.recorder.ops == {"aten.relu", "aten.sigmoid"} and watch.findings() == []
    with watch.call():
        assert _pop_mode() is watch.recorder  # what a candidate popping the guard does
    assert watch.findings() == ["integrity:dispatch_guard_removed"]
    assert not _get_current_dispatch_mode_stack()  # nothing else was popped in its place
    with watch.call():  # the next call is watched again, and the finding stays
        torch.ones(2).tanh()
    assert "aten.tanh" in watch.recorder.ops and watch.findings()



def test_a_mode_left_above_the_recorder_is_reported_and_not_popped_in_its_place() -> None:
    from torch.utils._python_dispatch import (
        TorchDispatchMode,
        _get_current_dispatch_mode_stack,
        _pop_mode,
    )

    class Hider(TorchDispatchMode):  # sees every op before the recorder does
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
            return func(*args, **(kwargs or {}))

    watch = WatchedCalls()
    hider = Hider()
    with watch.call():
        hider.__enter__()  # what a candidate pushing its own mode and leaving it does
    try:
        assert watch.findings() == ["integrity:dispatch_guard_removed"]
        # the old exit popped the top of the stack, the candidate's mode, and said nothing
        assert _get_current_dispatch_mode_stack() == [watch.recorder, hider]
    finally:
        while _get_current_dispatch_mode_stack():
            _pop_mode()
