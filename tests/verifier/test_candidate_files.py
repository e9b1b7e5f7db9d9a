"""The parent opens what the candidate's job wrote without following its names.

``candidate-out/`` is the job's to write, at any moment its code runs: the native cheat
(tests/verifier/native_exchange/) swaps each file the worker saved there for a named pipe
(the parent, opening it by name, waited for ever: a hung check is the machine's ``error``,
left out of fast_p) or for a symbolic link (the parent, root, read its own environment and
put its first byte in the verdict). Now either is ``rejected``, at once: the pieces here,
the attacks end to end on each backend in ``tests/sandbox/test_what_the_job_leaves.py``.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
import torch

from kerneltrials.verifier.harness._candidate_files import (
    TamperedFile,
    load_candidate_tensors,
    open_candidate_file,
    read_candidate_text,
)


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


@pytest.mark.timeout(30)
def test_a_file_rewritten_with_a_huge_pickle_or_no_archive_is_tampering(tmp_path: Path) -> None:
    # torch's weights-only unpickler is Python, one step per opcode: millions of them
    # would keep the parent busy for minutes; a worker's pickle is a few kilobytes.
    torch.save({"outputs": list(range(1_000_000))}, tmp_path / "huge.pt")  # 4.6 MB
    started = time.monotonic()
    with pytest.raises(TamperedFile, match="pickle is not one of at most"):
        load_candidate_tensors(tmp_path / "huge.pt", max_bytes=1 << 30)
    assert time.monotonic() - started < 2
    (tmp_path / "plain.pt").write_bytes(b"\x80\x02]q\x00.")  # a bare pickle, no archive
    with pytest.raises(TamperedFile, match="no tensor archive"):
        load_candidate_tensors(tmp_path / "plain.pt", max_bytes=1 << 20)
