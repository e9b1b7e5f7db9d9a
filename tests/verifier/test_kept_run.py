"""The correctness runs' tensors are read out of the frozen candidate worker
(``harness/_kept_run.py``). A run the parent cannot read as the structure it expects goes
through the file its worker saves (``SaveKept``), with the same verdict either way."""

from __future__ import annotations

import os
import threading
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import pytest
import torch

import kerneltrials
from kerneltrials.sandbox import MemoryReadError
from kerneltrials.verifier import QUICK_TIMING, CheckOptions, Status, Verdict
from kerneltrials.verifier.harness import _kept_run, _output_reads, _stages
from kerneltrials.verifier.harness._session import Outcome
from kerneltrials.verifier.protocol import Region, RunReport
from kerneltrials.verifier.worker._run import describe_output, output_regions
from tests.verifier.candidates import candidate

OPTIONS = CheckOptions(timing=QUICK_TIMING, compile_baseline=False, hidden_seed=11)
#: L1/relu's configurations (public and hidden) times the input seeds per configuration.
RUNS = 6 * OPTIONS.seeds


def _own_reads() -> _output_reads.OutputReads:
    """Reads of this very process, standing in for a frozen worker's (no privilege needed)."""
    process = SimpleNamespace(pids=lambda: [os.getpid()], channel_holder_pid=os.getpid,
                              kill=lambda reason: None)
    return _output_reads.OutputReads(worker=SimpleNamespace(process=process))  # type: ignore[arg-type]


def _run_reply(items: list[Any], readdressed: bool = False, replays: int = 0) -> RunReport:
    calls = [items[0], items[1], *items[3:]]
    return RunReport(structures=[describe_output(item, "cpu") for item in calls], integrity=[],
                     kernel_calls=[1] * len(calls), ops=[], custom_share=None,
                     aliases_input=False, replays=[SimpleNamespace()] * replays,  # type: ignore[list-item]
                     readdressed=readdressed, kept=[output_regions(item) for item in items])


def test_a_run_is_read_whole_into_the_parents_own_memory() -> None:
    expected = (torch.randn(3, 5), torch.randn(7))
    inputs = [torch.randn(3, 5)]
    first, second = (expected[0] + 1, expected[1] * 2), (expected[0] - 1, expected[1])
    readdressed, replay = (torch.zeros(3, 5), torch.ones(7)), (expected[0].t().contiguous().t(),
                                                              torch.full((7,), float("nan")))
    items = [first, second, [inputs[0] * 3], readdressed, replay]
    reads = _own_reads()
    produced = _kept_run.read_kept_run(reads, _run_reply(items, True, 1), expected, inputs)
    assert produced is not None and reads.runs_read == 1
    pairs = [(produced["outputs"][0], first), (produced["outputs"][1], second),
             (produced["inputs_after"], items[2]), (produced["readdressed"], readdressed),
             (produced["replays"][0], replay)]
    for got, want in pairs:
        assert type(got) is type(want)
        for a, b in zip(got, want, strict=True):
            assert a.stride() == b.stride() and torch.equal(a.nan_to_num(), b.nan_to_num())
            assert a.data_ptr() != b.data_ptr()  # a copy in the parent, not the worker's bytes
    before = produced["outputs"][0][0].clone()
    first[0].add_(100)  # the worker's memory changes after the read: the parent's does not
    assert torch.equal(produced["outputs"][0][0], before)


def test_another_structure_or_no_privilege_goes_the_old_way() -> None:
    expected, inputs = torch.randn(4, 4), [torch.randn(4, 4)]
    good = [expected + 1, expected + 1, [inputs[0]]]
    assert _kept_run.read_kept_run(_own_reads(), _run_reply(good), expected, inputs)
    others = {
        "another dtype": [expected.double(), expected, [inputs[0]]],
        "another shape": [expected.reshape(2, 8), expected, [inputs[0]]],
        "another tree": [(expected, expected), expected, [inputs[0]]],
    }
    for what, items in others.items():
        reads = _own_reads()
        assert _kept_run.read_kept_run(reads, _run_reply(items), expected, inputs) is None, what
        assert reads.runs_read == 0
    # A non-tensor leaf in what the parent expects: only the file keeps it as it was.
    assert _kept_run.read_kept_run(_own_reads(), _run_reply(good), expected,
                                   [inputs[0], 3]) is None
    # Memory that is not there (an address no mapping holds) is no answer either.
    lying = replace(_run_reply(good), kept=[
        [replace(output_regions(expected)[0], address=8)], *_run_reply(good).kept[1:]])
    assert _kept_run.read_kept_run(_own_reads(), lying, expected, inputs) is None
    # Strides that span more than any output may: refused before a byte is allocated.
    huge = Region(address=expected.data_ptr(), dtype="torch.float32", shape=[4, 4],
                  strides=[1 << 40, 1], device="cpu")
    with pytest.raises(_output_reads.UnreadableOutput, match="spanning"):
        _own_reads().read_whole(huge, expected)
    unprivileged = _own_reads()
    unprivileged.unavailable = "EPERM"
    assert _kept_run.read_kept_run(unprivileged, _run_reply(good), expected, inputs) is None


def test_the_next_run_reuses_the_buffers_of_the_last() -> None:
    expected, inputs = torch.randn(64, 64), [torch.randn(64, 64)]
    reads = _own_reads()
    first = _kept_run.read_kept_run(reads, _run_reply([expected, expected, [inputs[0]]]),
                                    expected, inputs)
    assert first is not None
    address = first["outputs"][0].data_ptr()
    second = _kept_run.read_kept_run(reads, _run_reply([inputs[0], expected, [expected]]),
                                     expected, inputs)
    assert second is not None and second["outputs"][0].data_ptr() == address
    assert torch.equal(second["outputs"][0], inputs[0])
    reads.release()
    assert not reads._buffers


def test_a_read_that_hangs_is_the_candidates_rejection(monkeypatch: pytest.MonkeyPatch) -> None:
    killed = threading.Event()

    def hanging(*args: object) -> None:
        assert killed.wait(30), "the watchdog never killed the job"
        raise MemoryReadError("process_vm_readv: EFAULT")

    reads = _own_reads()
    reads.worker.process.kill = lambda reason: killed.set()  # type: ignore[attr-defined]
    monkeypatch.setattr(_output_reads, "read_process_memory_into", hanging)
    monkeypatch.setattr(_output_reads, "READ_WATCHDOG_S", 0.2)
    expected, inputs = torch.randn(4), [torch.randn(4)]
    with pytest.raises(Outcome, match="integrity:run_output_unreadable"):
        _kept_run.read_kept_run(reads, _run_reply([expected, expected, [inputs[0]]]),
                                expected, inputs)


MUTATES_INPUT = candidate("relu_ok").replace(
    "        return ext.relu_ok(x)\n",
    "        out = ext.relu_ok(x)\n        x.view(-1)[0] = 7.0\n        return out\n")


def _verdicts(source: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Verdict, Verdict]:
    read = kerneltrials.check("L1/relu", source, options=OPTIONS)
    with monkeypatch.context() as patched:
        patched.setattr(_stages, "read_kept_run", lambda *args: None)  # as if nothing could be read
        saved = kerneltrials.check("L1/relu", source, options=OPTIONS)
    return read, saved


@pytest.mark.timeout(600)
@pytest.mark.parametrize(("source", "status", "reason"), [
    (candidate("relu_ok"), Status.CORRECT, None),
    (candidate("relu_wrong"), Status.INCORRECT, "correctness:"),
    (MUTATES_INPUT, Status.INCORRECT, "correctness:input_mutated[0]"),
], ids=["honest", "wrong", "mutates_input"])
def test_a_read_run_and_a_saved_one_get_the_same_verdict(
        source: str, status: Status, reason: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    read, saved = _verdicts(source, monkeypatch)
    reads = read.isolation.get("timed_output_reads") or {}
    if not reads.get("read"):
        pytest.skip(f"the worker's memory cannot be read here: {reads.get('why')}")
    for verdict in (read, saved):
        assert verdict.status == status, verdict.reasons
        if reason is not None:
            assert any(reason in r for r in verdict.reasons), verdict.reasons
    assert [c.passed for c in read.configs] == [c.passed for c in saved.configs]
    assert reads["runs_read"] == RUNS  # every configuration's every seed, wrong ones too
    assert (saved.isolation.get("timed_output_reads") or {}).get("runs_read", 0) == 0
