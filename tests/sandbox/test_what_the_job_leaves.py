"""What the candidate's job leaves for the parent, end to end on each sandbox backend.

A check that hangs or raises is the machine's ``error``, left out of fast_p: a candidate
that can make the parent fail turns a verdict of its own into one that does not count.
The C++ attacks (``tests/verifier/native_exchange/``) reach the parent through the three
doors it has: the files its worker saves in ``candidate-out/`` (a named pipe or a link put
under the name the worker saves to, before the save or after it; where the parent reads
the correctness runs' tensors out of the frozen worker, no such file is saved or opened), the directory tree under
it (nested past Python's recursion)
and its private channel (a frame nested past the JSON parser's). Each used to hang or
raise in the parent; each is the candidate's rejection now, and the next check is unharmed.
The parent's pieces alone: ``tests/verifier/test_candidate_files.py``, ``test_disk.py``,
``test_protocol.py``.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import pytest

import kerneltrials
from kerneltrials.verifier import QUICK_TIMING, CheckOptions, Status, Verdict

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

NATIVE = Path(__file__).parent.parent / "verifier" / "native_exchange"
# The link policy would reject the file and socket calls (rename, mkfifo, inotify, write)
# before any run; raw system calls would not import them. What is tested is the parent.
OPTIONS = CheckOptions(timing=QUICK_TIMING, compile_baseline=False, call_timeout_s=30,
                       hidden_seed=7, source_scans=False, link_policy=False)
#: Far below what a hung parent took (for ever), far above a check of relu.
PROMPT_S = 120


@pytest.fixture
def sandbox(check_sandbox: str) -> str:
    """The backend's name (conftest's ``check_sandbox``)."""
    return check_sandbox


def verify(sandbox: str, source: str, **fields: object) -> Verdict:
    return kerneltrials.check("L1/relu", source, sandbox=sandbox,
                              options=replace(OPTIONS, **fields))  # type: ignore[arg-type]


def swapping(swap: str, prefix: str = "") -> str:
    return ((NATIVE / "swap_outputs.py").read_text()
            .replace('SWAP = "fifo"', f"SWAP = {swap!r}").replace('PREFIX = ""', f"PREFIX = {prefix!r}"))


@pytest.mark.parametrize("place", ["fifo", "symlink"])
def test_outputs_put_under_the_saved_name_are_rejected_at_once(sandbox: str, place: str) -> None:
    # Where the parent reads the correctness run's tensors out of the frozen worker, its
    # worker saves no file there, and nothing is opened under that name: the honest relu
    # it computes is correct. Without the reads (no privilege) the file is the door.
    started = time.monotonic()
    source = (NATIVE / "place_outputs.py").read_text().replace('PLACE = "fifo"',
                                                              f"PLACE = {place!r}")
    read = verify(sandbox, source)
    if read.isolation.get("timed_output_reads", {}).get("runs_read"):
        assert read.status == Status.CORRECT, read.reasons
    verdict = verify(sandbox, source, read_timed_outputs=False)
    assert verdict.status == Status.REJECTED, verdict.reasons
    kind = "a named pipe" if place == "fifo" else "a symbolic link"
    assert verdict.reasons[0].startswith("integrity:tampered_output_file:"), verdict.reasons
    assert kind in verdict.reasons[0]
    assert time.monotonic() - started < PROMPT_S  # before: the pipe's check never ended


@pytest.mark.parametrize(("swap", "prefix", "fields"), [
    ("fifo", "", {}), ("symlink", "", {}),
    # Where the parent cannot read the frozen worker (no privilege, device memory), timed
    # calls are spot-checked through files the worker saves in the same directory.
    ("fifo", "spot-", {"read_timed_outputs": False})])
def test_files_swapped_after_the_save_never_hang_or_fail_the_parent(
        sandbox: str, swap: str, prefix: str, fields: dict[str, object]) -> None:
    # The swap races the parent's freeze after the reply (here it usually wins; on a
    # loaded machine the freeze may come first, or fall between the swap's rename and
    # the new file): whoever wins, the check ends at once, as the candidate's own
    # verdict — rejected for the file swapped in (or a spot file renamed away), incorrect
    # for outputs renamed away, correct when nothing was swapped in time — never the
    # machine's error.
    started = time.monotonic()
    verdict = verify(sandbox, swapping(swap, prefix), **fields)
    assert time.monotonic() - started < PROMPT_S  # before: the pipe's check never ended
    assert verdict.status in (Status.REJECTED, Status.INCORRECT, Status.CORRECT), verdict.reasons
    assert "Unsupported operand" not in " ".join(verdict.reasons)  # the environ's byte
    if verdict.status == Status.REJECTED:
        assert any(r.startswith(("integrity:tampered_output_file:", "integrity:malformed_spots"))
                   for r in verdict.reasons), verdict.reasons
    if verdict.status == Status.INCORRECT:
        assert any("No such file" in r for r in verdict.reasons), verdict.reasons


def test_the_same_kernel_swapping_no_file_of_its_workers_is_correct(sandbox: str) -> None:
    # The control: the same thread, watching the same directory, touching nothing the
    # worker saved (no file of the worker's starts with this prefix).
    verdict = verify(sandbox, swapping("fifo", prefix="never-"))
    assert verdict.status == Status.CORRECT, verdict.reasons


def test_a_deep_tree_is_rejected_and_the_next_check_is_unharmed(sandbox: str) -> None:
    # Before: os.walk's RecursionError escaped check() itself, the check's directory
    # stayed, and every later check's sweep of dead checks' directories raised on it.
    verdict = verify(sandbox, (NATIVE / "deep_tree.py").read_text())
    assert verdict.status == Status.REJECTED, verdict.reasons
    assert verdict.reasons[0].startswith("sandbox:disk_flood:"), verdict.reasons
    assert "longest path" in verdict.reasons[0]
    assert verify(sandbox, swapping("fifo", prefix="never-")).status == Status.CORRECT


def test_a_frame_of_nested_arrays_on_the_channel_is_the_candidates_forgery(sandbox: str) -> None:
    verdict = verify(sandbox, (NATIVE / "nested_reply.py").read_text())
    assert verdict.status == Status.REJECTED, verdict.reasons
    assert verdict.reasons[0].startswith("integrity:forged_channel_frame:"), verdict.reasons
    assert "nests deeper" in verdict.reasons[0]
