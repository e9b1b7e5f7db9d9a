"""Suite-wide fixtures. Every test that compiles shares the machine's build cache
(``~/.cache/kerneltrials`` unless ``KERNELTRIALS_CACHE`` is set), so a kernel source is
compiled once per machine and most builds are cache hits."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent

# Set before any test imports the verifier, so workers inherit it too.
os.environ.setdefault("KERNELTRIALS_CACHE", str(Path.home() / ".cache" / "kerneltrials"))
os.environ.setdefault("CUDA_HOME", "/usr/local/cuda-13.0")
# Two pytest workers share the machine's cores with the checks' sandboxed jobs: OpenMP
# threads of a test process that spin after each parallel region (the default) take
# cycles from all of them (validating the L1 tasks on two workers: 168 s spinning, 139 s
# passive). Read when torch loads its OpenMP runtime, so set before any test imports it;
# jobs never inherit it (the sandbox's environment is an allow-list).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def _keep_the_test_process_heap() -> None:
    """Large tensors the tests make in their own process come from a heap that keeps freed
    blocks, as the verifier's workers have it: glibc would map and unmap each one, and its
    pages fault in again every time (validating every task on two workers: 105 s, 56 s of
    it in the kernel; 78 s and 7 s so). Only this process: children start afresh."""
    from kerneltrials.verifier.worker._heap import keep_freed_blocks

    keep_freed_blocks()


_keep_the_test_process_heap()


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture
def deep_tmp(tmp_path: Path) -> Iterator[Path]:
    """``tmp_path``, removed afterwards by the harness's own ``remove_tree`` whatever the
    test left (e.g. a tree nested past Python's recursion): pytest's own clean-up of old
    temporary directories recurses, and would fail on such a tree in every later session."""
    from kerneltrials._scratch import remove_tree

    yield tmp_path
    remove_tree(tmp_path)
