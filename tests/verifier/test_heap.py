"""Both timed workers keep freed blocks in the heap (worker/_heap.py): a large output is
not a fresh mapping whose pages fault in inside the call's time."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """
import sys, torch
if sys.argv[1] == "worker":
    from kerneltrials.verifier.worker._ops import warm_up
    warm_up("reference")
def in_heap(tensor):
    address = tensor.data_ptr()
    for line in open("/proc/self/maps"):
        if line.rstrip().endswith("[heap]"):
            low, high = (int(x, 16) for x in line.split()[0].split("-"))
            if low <= address < high:
                return True
    return False
first = torch.empty(16 << 20)  # 64 MiB: far above glibc's mmap threshold
first_in_heap = in_heap(first)
del first
second = torch.empty(16 << 20)
print(first_in_heap, in_heap(second))
"""


def _probe(mode: str) -> str:
    done = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True,
                          timeout=120, check=True)
    return done.stdout.split("\n")[-2]


@pytest.mark.timeout(180)
def test_a_large_output_comes_from_the_heap_and_goes_back_to_it() -> None:
    assert _probe("worker") == "True True"
    # The control: without the setting the same allocation is a mapping of its own.
    assert _probe("plain") == "False False"
