"""Any timed call may be checked (issue 19, item 4): the parent reads the drawn calls'
outputs out of the frozen candidate (tests/verifier/native_timed/ holds the cheats).

The cheats are native code with the source scans off: two try to learn whether a timed
call is checked — by reading the timing loop's locals through the CPython API (the spot
checks the request names), by probing the allocator for glibc's M_PERTURB pattern (on in
the correctness stage only) — and do no work otherwise; one hands back outputs whose pages
are computed only when touched. The locals reader gets through as ``correct`` (flagged at
10-20x on an idle machine) when the reads are off, which is what makes it a test of the
reads. The other probes get no answer: every call of the candidate runs in one mode (issue 19, item 5), so
the allocator probe does no work in a spot-checked call either, and the "is it watched?"
cheat that asks the dispatcher whether a mode (the policy recorder) is on hears yes in
every call and does its work every time. One more undoes ``--inputs signed`` by rewriting
its own inputs to the magnitudes the file drew: its outputs are right for what it holds,
and wrong against the reference's.
"""

from __future__ import annotations

import errno
import math
import threading
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

import kerneltrials
from kerneltrials.sandbox import MemoryReadError
from kerneltrials.verifier import QUICK_TIMING, CheckOptions, Status, TimingOptions, Verdict
from kerneltrials.verifier.harness._compare import Comparison, compare_tensor
from kerneltrials.verifier.harness._output_reads import (
    CHEAT_SHARE,
    MISS_BOUND,
    WRONG_ELEMENT_SHARE,
    UnreadableOutput,
    _read_sample,
    check_probability,
    sample_detection,
)
from kerneltrials.verifier.protocol import SAMPLED_ELEMENTS, Region, Timed, sample_positions
from kerneltrials.verifier.worker._samples import sampled_output

NATIVE = Path(__file__).parent / "native_timed"
# The link policy would reject the cheats' imports (the CPython API, mmap) before any run:
# what these tests show is the reads, so it is off.
OPTIONS = CheckOptions(timing=QUICK_TIMING, compile_baseline=False, source_scans=False,
                       link_policy=False, hidden_seed=5)
CHEATS = {
    "relu_when_watched": "integrity:timed_output_mismatch",
    "relu_mostly_when_watched": "integrity:timed_output_mismatch",
    "relu_when_perturbed": "integrity:timed_output_mismatch",
    "lazy_output_pages": "integrity:timed_output_unreadable",
}


#: Cheats written as another with a few words changed: the file, and the changes.
VARIANTS = {
    # Most of the work anyway: only the last 4% of each unwatched output is left undone
    # (about half of it wrong: the cheat a sample of the elements could miss).
    "relu_mostly_when_watched": ("relu_when_watched", {
        "#define SKIPPED_PART 1": "#define SKIPPED_PART 25",
        "kt_relu_when_watched": "kt_relu_mostly_when_watched"}),
    # No work in a batch shorter than the configuration's longest so far: the side's last
    # batch, cut to the calls it has left (``_timing_loop.batch_size``). The request's own
    # fields, read with the CPython API, tell it.
    "relu_in_the_short_batch": ("relu_when_watched", {
        "#include <cstring>": "#include <cstring>\n#include <string>",
        "bool skip = spot != nullptr && index != nullptr && PySet_Contains(spot, index) == 0;":
            """PyObject* request = frame_local("time_op", "request");
    PyObject* config = request != nullptr ? PyObject_GetAttrString(request, "config") : nullptr;
    PyObject* calls = request != nullptr ? PyObject_GetAttrString(request, "n_calls") : nullptr;
    static std::string seen_config;
    static long longest = 0;
    const char* name = config != nullptr ? PyUnicode_AsUTF8(config) : nullptr;
    if (name != nullptr && seen_config != name) { seen_config = name; longest = 0; }
    long now = calls != nullptr ? PyLong_AsLong(calls) : 0;
    if (now > longest) longest = now;
    bool skip = now > 0 && now < longest;
    Py_XDECREF(request); Py_XDECREF(config); Py_XDECREF(calls); PyErr_Clear();""",
        "kt_relu_when_watched": "kt_relu_in_the_short_batch"}),
}


def cheat_source(name: str) -> str:
    base, changes = VARIANTS.get(name, (name, {}))
    source = (NATIVE / f"{base}.py").read_text()
    for old, new in changes.items():
        assert old in source, (base, old)
        source = source.replace(old, new)
    return source


def verify(name: str, **fields: object) -> Verdict:
    options = replace(OPTIONS, **fields)  # type: ignore[arg-type]
    return kerneltrials.check("L1/relu", cheat_source(name), options=options)


def _reads_possible(verdict: Verdict) -> None:
    reads = verdict.isolation.get("timed_output_reads")
    if reads is not None and not reads.get("read"):
        pytest.skip(f"the outputs cannot be read here: {reads.get('why')}")


@pytest.mark.timeout(600)
@pytest.mark.parametrize("name", sorted(CHEATS))
def test_native_cheat_on_unchecked_calls_is_rejected(name: str) -> None:
    verdict = verify(name)
    _reads_possible(verdict)
    assert verdict.status == Status.REJECTED, (verdict.status, verdict.reasons)
    assert any(r.startswith(CHEATS[name]) for r in verdict.reasons), verdict.reasons


#: Batches that end short of max_calls: whatever the batch (the ReLU's 16-50 calls at this
#: target, or fewer for the largest outputs), 77 calls divide into none of them but 7 and 11;
#: no adaptive stop, no precision stop.
SHORT_LAST_BATCH = TimingOptions(warmup_calls=1, target_rse=1e-9, max_measure_s=60.0,
                                 max_wall_s=60.0, min_calls=3, max_calls=77,
                                 batch_target_s=0.02, decided_half_width=None)


@pytest.mark.timeout(600)
def test_a_cheat_in_the_shortened_last_batch_is_read_like_any_other() -> None:
    # Where the outputs are read, a side's last batch is cut to the calls it has left, so
    # the candidate can tell it; its calls are read as every other call is.
    verdict = verify("relu_in_the_short_batch", timing=SHORT_LAST_BATCH)
    _reads_possible(verdict)
    assert verdict.status == Status.REJECTED, (verdict.status, verdict.reasons)
    assert any(r.startswith("integrity:timed_output_mismatch") for r in verdict.reasons), \
        verdict.reasons
    # Without the reads (spot checks only) no candidate batch is cut, so the same cheat
    # never finds a short batch to skip: it does all its work and is correct.
    unread = verify("relu_in_the_short_batch", timing=SHORT_LAST_BATCH, read_timed_outputs=False)
    assert unread.status == Status.CORRECT, unread.reasons


@pytest.mark.timeout(600)
def test_without_the_reads_the_cheat_gets_through() -> None:
    # The control: what the reads catch, nothing else in the verifier does. That the cheat
    # leaves its unchecked outputs undone is shown by the test above (the reads find them
    # wrong); this one shows that without the reads nothing stands in its way: ``correct``
    # (``suspicious`` above 10x is advisory) and faster than the reference. How much
    # faster is the load's to decide, not the test's: 10-13x on an idle machine, 7-9x
    # beside two busy cores, 1.8x once in CI beside another pytest worker (the load
    # shrinks a near-empty call's ratio), so a higher bound would be a timed assertion.
    verdict = verify("relu_when_watched", read_timed_outputs=False)
    assert verdict.status == Status.CORRECT, verdict.reasons
    assert (verdict.speedup or 0) > 1, (verdict.speedup, verdict.reasons)


def test_the_check_probability_meets_the_bound() -> None:
    q = sample_detection()
    assert q >= 1 - (1 - WRONG_ELEMENT_SHARE) ** SAMPLED_ELEMENTS - 1e-12
    assert sample_detection(0.0005) < 0.7  # 1 element in 2000 wrong: a sample may miss it
    for calls in (1, 5, 20, 60, 200, 400, 2400):
        p = check_probability(calls)
        assert 0 < p <= 1
        cheated = math.ceil(CHEAT_SHARE * calls)  # at least one call is wrong
        escape = (1 - p * q) ** max(cheated, CHEAT_SHARE * calls)
        assert escape <= MISS_BOUND * (1 + 1e-9), (calls, p, escape)
    assert check_probability(20) >= 0.999  # quick timing: nearly every call is read
    assert math.isclose(check_probability(400), (1 - MISS_BOUND ** (1 / 20)) / q)


def test_the_sampled_positions_are_one_draw_on_both_sides() -> None:
    numel = 4_000_000
    positions = sample_positions(7, 3, 0, numel)
    assert positions == sample_positions(7, 3, 0, numel)  # the reference's and the parent's
    assert len(positions) == SAMPLED_ELEMENTS and positions == sorted(positions)
    assert 0 <= positions[0] and positions[-1] < numel
    assert positions[-1] - positions[0] > numel // 2  # spread over the output
    others = [sample_positions(8, 3, 0, numel), sample_positions(7, 4, 0, numel),
              sample_positions(7, 3, 1, numel)]
    assert all(len(set(positions) & set(other)) < 20 for other in others)
    assert sample_positions(7, 3, 0, 100) == list(range(100))  # small: every element


def test_a_sample_is_judged_against_the_whole_outputs_scale() -> None:
    # An honest output with one large element: off by 1e-5 everywhere, well within the
    # tolerance normalised by the whole output's largest magnitude, but not by a sample's.
    reference = torch.full((10_000,), 1e-3)
    positions = sample_positions(1, 0, 0, reference.numel())
    unsampled = min(set(range(reference.numel())) - set(positions))
    reference[unsampled] = 10.0
    record = sampled_output((reference,), seed=1, call=0)[0]
    assert record["scale"] == 10.0 and record["shape"] == [10_000]
    assert torch.equal(record["values"], reference[positions])
    honest = record["values"] + 1e-5
    judged = Comparison()
    compare_tensor(record["values"], honest, 1e-4, 1e-4, judged, scale=record["scale"])
    assert judged.passed, judged.reasons
    unscaled = Comparison()
    compare_tensor(record["values"], honest, 1e-4, 1e-4, unscaled)
    assert not unscaled.passed  # what the sample alone would have said


def test_an_output_said_to_be_off_the_host_is_unreadable_not_skipped() -> None:
    # The region is the candidate's claim: claiming device memory must not switch the
    # reads off (which a privilege error would), it is a rejection.
    region = Region(address=0x1000, dtype="torch.float32", shape=[4], strides=[1],
                    device="cuda")
    with pytest.raises(UnreadableOutput, match="cuda"):
        _read_sample(None, 1, region, [0, 1])  # type: ignore[arg-type]
    # An address past the end of the address space is no place to read from either.
    beyond = replace(region, device="cpu", address=2**64 - 8)
    with pytest.raises(UnreadableOutput, match="address space"):
        _read_sample(SimpleNamespace(process=None), 1, beyond, [0, 3])  # type: ignore[arg-type]


def _own_region(tensor: torch.Tensor) -> Region:
    """Where ``tensor`` lies, as the worker describes an output."""
    from kerneltrials.verifier.worker._run import output_regions

    return output_regions(tensor)[0]


@pytest.mark.parametrize("numel", [300_000, 4_000_000])
def test_a_sample_read_in_merged_ranges_is_the_elements_read_alone(numel, monkeypatch) -> None:
    # This process reads itself (always allowed): a small output's sample is read as a
    # few ranges that cover nearby elements, a large one's element by element; either
    # way the values are the tensor's own at the sampled positions, in their order, also
    # through a transposed view (addresses not in the positions' order) and for 2-byte items.
    import os

    from kerneltrials.verifier.harness import _output_reads

    me = SimpleNamespace(process=SimpleNamespace(pids=lambda: [os.getpid()]))
    merged_calls = []
    real = _output_reads.read_process_ranges
    monkeypatch.setattr(_output_reads, "read_process_ranges",
                        lambda *args: merged_calls.append(len(args[2])) or real(*args))
    side = int(math.sqrt(numel))
    for index, tensor in enumerate((torch.randn(numel), torch.randn(side, side).t(),
                                    torch.randn(numel).to(torch.bfloat16))):
        positions = sample_positions(3, 1, 0, tensor.numel())
        values = _read_sample(me, os.getpid(), _own_region(tensor), positions)  # type: ignore[arg-type]
        assert torch.equal(values, tensor.reshape(-1)[positions])
        if index == 0 and numel < 1_000_000:  # 1.2 MB: a handful of ranges
            assert merged_calls and merged_calls[-1] < SAMPLED_ELEMENTS // 2
        if index == 0 and numel > 1_000_000:  # 16 MB: nearly a page per element, no merge
            assert not merged_calls


def test_a_merged_read_over_a_hole_falls_back_to_the_elements(monkeypatch) -> None:
    # Elements on both sides of a page that cannot be read are more than a page apart, so
    # no range spans the page and they read as they are; an element in the page fails
    # the range that holds it, and the elements alone then decide: not mapped.
    import ctypes
    import mmap
    import os

    from kerneltrials.verifier.harness import _output_reads

    ranges_read: list[list[int]] = []
    real = _output_reads.read_process_ranges
    monkeypatch.setattr(_output_reads, "read_process_ranges",
                        lambda *args: ranges_read.append(list(args[2])) or real(*args))
    me = SimpleNamespace(process=SimpleNamespace(pids=lambda: [os.getpid()]))
    pages = mmap.mmap(-1, 3 * mmap.PAGESIZE)
    tensor = torch.frombuffer(pages, dtype=torch.float32)
    tensor.copy_(torch.arange(tensor.numel(), dtype=torch.float32))
    libc = ctypes.CDLL(None, use_errno=True)
    middle = tensor.data_ptr() + mmap.PAGESIZE
    assert libc.mprotect(ctypes.c_void_p(middle), mmap.PAGESIZE, 0) == 0  # PROT_NONE
    per_page = mmap.PAGESIZE // 4
    positions = [per_page - 2, per_page - 1, 2 * per_page, 2 * per_page + 1]
    values = _read_sample(me, os.getpid(), _own_region(tensor), positions)  # type: ignore[arg-type]
    assert values.tolist() == [float(p) for p in positions]
    assert ranges_read == [[tensor.data_ptr() + 4 * p for p in (per_page - 2, 2 * per_page)]]
    with pytest.raises(MemoryReadError, match="not mapped"):  # the element in the hole
        _read_sample(me, os.getpid(), _own_region(tensor), [0, per_page])  # type: ignore[arg-type]
    assert ranges_read[-1] == [tensor.data_ptr()]  # one range over both, which failed
    libc.mprotect(ctypes.c_void_p(middle), mmap.PAGESIZE, 3)
    del tensor


@pytest.mark.timeout(600)
def test_the_allocator_tells_no_spot_checked_call_from_another() -> None:
    # Reads off: what catches the allocator probe is the spot check, whose call runs as
    # every timed call does (before issue 19's one mode it ran with M_PERTURB on).
    verdict = verify("relu_when_perturbed", read_timed_outputs=False)
    assert verdict.status == Status.REJECTED, (verdict.status, verdict.reasons)
    assert any(r.startswith("integrity:timed_output_mismatch") for r in verdict.reasons), \
        verdict.reasons


@pytest.mark.timeout(600)
def test_asking_the_dispatcher_whether_it_is_watched_always_hears_yes() -> None:
    # With the default options the link policy reads the import before anything runs.
    verdict = verify("relu_when_recorded", link_policy=None)
    assert verdict.status == Status.REJECTED, verdict.reasons
    assert any(r.startswith("link:forbidden_symbol:c10::impl::dispatch_mode_enabled")
               for r in verdict.reasons), verdict.reasons
    # Without it: every call, correctness and timed alike, runs with the recorder on the
    # mode stack, so the question has one answer and the kernel works every time.
    unlinked = verify("relu_when_recorded", read_timed_outputs=False)
    assert unlinked.status == Status.CORRECT, unlinked.reasons
    assert not any(r.startswith("integrity:") for r in unlinked.reasons), unlinked.reasons


@pytest.mark.timeout(900)
def test_rewriting_signed_inputs_back_to_the_files_magnitudes_is_rejected(
        tmp_path: Path) -> None:
    # KernelBench's ReLU drawing torch.rand; with --inputs signed the candidate's own
    # timing inputs hold negatives, which its native code rewrites to |x| in place. What it
    # holds is no measure: its outputs are compared with the reference worker's.
    task = tmp_path / "19_ReLU_rand.py"
    original = Path(__file__).parents[1] / "data" / "kernelbench" / "level1" / "19_ReLU.py"
    task.write_text(original.read_text().replace("torch.randn(batch_size, dim)",
                                                 "torch.rand(batch_size, dim)"))
    source = (NATIVE / "relu_signed_rewrite.py").read_text()
    # The candidate is honest for its first 40 calls: at least that many timed calls, or a
    # loaded machine's wall budget can end timing before it ever cheats (then `correct` is
    # the right verdict, and the test had failed so once, on two busy pytest workers).
    timing = replace(QUICK_TIMING, min_calls=45, max_calls=60)
    signed = kerneltrials.check(str(task), source,
                                options=replace(OPTIONS, inputs="signed", timing=timing))
    _reads_possible(signed)
    assert signed.status == Status.REJECTED, (signed.status, signed.reasons)
    assert any(r.startswith("integrity:timed_output_mismatch") for r in signed.reasons), \
        signed.reasons
    # The control: on the file's own inputs the rewrite changes nothing and the copy is a
    # right ReLU.
    as_drawn = kerneltrials.check(str(task), source, options=OPTIONS)
    assert as_drawn.status == Status.CORRECT, as_drawn.reasons


def test_a_read_that_hangs_kills_the_job_and_is_unreadable(monkeypatch: pytest.MonkeyPatch) -> None:
    # A read of memory that only the frozen job could serve (pages behind a userfaultfd,
    # where the host lets an unprivileged process handle kernel-mode faults) waits in the
    # kernel with no timeout: the watchdog kills the job, which ends the wait.
    from kerneltrials.sandbox import MemoryReadError
    from kerneltrials.verifier.harness import _output_reads

    killed = threading.Event()

    def hanging_read(*args: object) -> torch.Tensor:
        assert killed.wait(30), "the watchdog never killed the job"
        raise MemoryReadError("process_vm_readv: EFAULT", errno=errno.EFAULT)

    job = SimpleNamespace(kill=lambda reason: killed.set())
    reads = _output_reads.OutputReads(worker=SimpleNamespace(process=job), pid=1)  # type: ignore[arg-type]
    monkeypatch.setattr(_output_reads, "_read_sample", hanging_read)
    monkeypatch.setattr(_output_reads, "READ_WATCHDOG_S", 0.2)
    region = Region(address=0x1000, dtype="torch.float32", shape=[4], strides=[1], device="cpu")
    reply = Timed(times_ms=[1.0], outputs=[[region]])
    expected = sampled_output((torch.ones(4),), seed=3, call=0)
    with pytest.raises(UnreadableOutput, match="took over 0.2 s.*killed"):
        _output_reads.wrong_read_calls(reads, reply, [0], lambda drawn: [expected], (1e-5, 1e-5), 3)
    assert killed.is_set()
    # A read that answers in time is judged as always, and the watchdog stays quiet.
    monkeypatch.setattr(_output_reads, "_read_sample", lambda *args: torch.ones(4))
    killed.clear()
    assert _output_reads.wrong_read_calls(reads, reply, [0], lambda drawn: [expected],
                                          (1e-5, 1e-5), 3) == []
    time.sleep(0.4)
    assert not killed.is_set()
