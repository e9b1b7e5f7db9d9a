"""The parent opens what the candidate's job wrote without following its names.

``candidate-out/`` is the job's to write, at any moment its code runs: the native cheat
(tests/verifier/native_exchange/) swaps each file the worker saved there for a named pipe
(the parent, opening it by name, waited for ever: a hung check is the machine's ``error``,
left out of fast_p) or for a symbolic link (the parent, root, read its own environment and
put its first byte in the verdict). Now either is ``rejected``, at once.
"""

from __future__ import annotations

import os
import time
from dataclasses import replace
from pathlib import Path

import pytest
import torch

import kerneltrials
from kerneltrials.verifier import QUICK_TIMING, CheckOptions, Status, Verdict
from kerneltrials.verifier.harness._candidate_files import (
    TamperedFile,
    load_candidate_tensors,
    open_candidate_file,
    read_candidate_text,
)

NATIVE = Path(__file__).parent / "native_exchange" / "swap_outputs.py"
# The link policy would reject the file calls (rename, mkfifo, inotify) before any run;
# raw system calls would not import them. What is tested is the parent's reading.
OPTIONS = CheckOptions(timing=QUICK_TIMING, compile_baseline=False, call_timeout_s=30,
                       hidden_seed=7, source_scans=False, link_policy=False)


@pytest.mark.timeout(10)
def test_a_regular_file_is_read_and_a_saved_tensor_loads(tmp_path: Path) -> None:
    saved = tmp_path / "outputs.pt"
    torch.save({"outputs": [torch.arange(4.0)]}, saved)
    loaded = load_candidate_tensors(saved, max_bytes=1 << 20)
    assert torch.equal(loaded["outputs"][0], torch.arange(4.0))
    (tmp_path / "report.csv").write_bytes(b"a,b\n1,\xff\n")
    assert read_candidate_text(tmp_path / "report.csv", 1 << 20) == "a,b\n1,\ufffd\n"


@pytest.mark.timeout(10)
def test_a_link_a_pipe_a_directory_and_an_oversized_file_are_tampering(tmp_path: Path) -> None:
    secret = tmp_path / "host-file"
    secret.write_text("SECRET")
    (tmp_path / "link").symlink_to(secret)
    os.mkfifo(tmp_path / "pipe")  # no writer: opening it by name would wait for ever
    (tmp_path / "directory").mkdir()
    (tmp_path / "large").write_bytes(b"x" * 2048)
    expected = {"link": "a symbolic link", "pipe": "a named pipe", "directory": "a directory",
                "large": "a file of 2048 bytes, more than its job may write (1024)"}
    started = time.monotonic()
    for name, what in expected.items():
        with pytest.raises(TamperedFile) as raised:
            open_candidate_file(tmp_path / name, max_bytes=1024)
        assert str(raised.value) == what
    with pytest.raises(TamperedFile):
        read_candidate_text(tmp_path / "pipe", 1024)
    assert time.monotonic() - started < 5  # the pipe was never waited on


@pytest.mark.timeout(10)
def test_a_missing_file_is_an_error_that_does_not_name_its_path(tmp_path: Path) -> None:
    missing = tmp_path / "outputs-public-0-605134102.pt"  # the name holds a seed
    with pytest.raises(FileNotFoundError) as raised:
        open_candidate_file(missing, max_bytes=1024)
    assert "605134102" not in str(raised.value)


def _swapping(swap: str, prefix: str = "") -> str:
    return (NATIVE.read_text().replace('SWAP = "fifo"', f"SWAP = {swap!r}")
            .replace('PREFIX = ""', f"PREFIX = {prefix!r}"))


def verify(source: str, **fields: object) -> Verdict:
    return kerneltrials.check("L1/relu", source, options=replace(OPTIONS, **fields))  # type: ignore[arg-type]


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("swap", ["fifo", "symlink"])
def test_outputs_swapped_after_the_save_are_rejected_at_once(swap: str) -> None:
    started = time.monotonic()
    verdict = verify(_swapping(swap))
    assert verdict.status == Status.REJECTED, verdict.reasons
    kind = "a named pipe" if swap == "fifo" else "a symbolic link"
    assert verdict.reasons[0].startswith("integrity:tampered_output_file:"), verdict.reasons
    assert kind in verdict.reasons[0] and "Unsupported operand" not in verdict.reasons[0]
    assert time.monotonic() - started < 120  # before: the fifo's check never ended


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_spot_check_files_swapped_while_reads_are_off_are_rejected() -> None:
    # Where the parent cannot read the frozen worker (no privilege, device memory), timed
    # calls are spot-checked through files the worker saves in the same directory.
    verdict = verify(_swapping("fifo", prefix="spot-"), read_timed_outputs=False)
    assert verdict.status == Status.REJECTED, verdict.reasons
    assert any(r.startswith("integrity:tampered_output_file:") and "(timed)" in r
               for r in verdict.reasons), verdict.reasons


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_the_same_kernel_swapping_only_its_own_dot_files_is_correct() -> None:
    # The control: the same thread, watching the same directory, touching nothing the
    # worker saved (no file of the worker's starts with this prefix).
    verdict = verify(_swapping("fifo", prefix="never-"))
    assert verdict.status == Status.CORRECT, verdict.reasons


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_frame_of_nested_arrays_on_the_channel_is_the_candidates_forgery() -> None:
    # The same directory of native cheats: this one writes onto its worker's channel.
    source = (NATIVE.parent / "nested_reply.py").read_text()
    verdict = verify(source)
    assert verdict.status == Status.REJECTED, verdict.reasons
    assert verdict.reasons[0].startswith("integrity:forged_channel_frame:"), verdict.reasons
    assert "nests deeper" in verdict.reasons[0]


@pytest.mark.timeout(10)
def test_a_file_rewritten_with_containers_nested_past_any_worker_is_tampering(
        tmp_path: Path) -> None:
    # What a helper thread can write over a saved file in place (a regular file): the
    # unpickler builds the depth without recursing; the parent's comparisons would not.
    deep: list[object] = [torch.zeros(1)]
    for _ in range(70):
        deep = [deep]
    torch.save({"outputs": deep}, tmp_path / "outputs.pt")
    with pytest.raises(TamperedFile, match="nested more than 64 deep"):
        load_candidate_tensors(tmp_path / "outputs.pt", max_bytes=1 << 20)
    torch.save({"outputs": [[torch.zeros(1)], (torch.ones(2),)]}, tmp_path / "fine.pt")
    assert load_candidate_tensors(tmp_path / "fine.pt", max_bytes=1 << 20)["outputs"][1][0].sum() == 2
