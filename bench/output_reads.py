"""What reading one sampled output out of another process costs the parent, side by side.

A child process (forked, so it holds the same tensors at the same addresses, then
stopped as a frozen worker is) keeps float32 outputs of a few sizes. For each, the script
reads the sample of one checked call (``protocol.sample_positions``) as the parent does
(``_read_sample``, from positions to values), with merging off (one remote range per
element, as before and as it falls back to) and on (``_read_merged``: elements less than a page apart share a range), and prints
the median of each, their ratio and the ranges merged. Each read is checked against the
tensor's own values. It also times drawing the positions one ``choices`` element at a
time (how they were drawn before) against the one-call draw. Nothing is asserted.

    .venv/bin/python bench/output_reads.py [--repeats 200]
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from kerneltrials.sandbox import read_process_elements  # noqa: E402
from kerneltrials.verifier.harness import _output_reads  # noqa: E402
from kerneltrials.verifier.protocol import SAMPLED_ELEMENTS, Region, sample_positions  # noqa: E402


def _median_ms(work: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=200, help="reads per size and way")
    args = parser.parse_args()
    sizes_mb = (1, 4, 16, 64)
    outputs = [torch.randn(mb * 2**20 // 4) for mb in sizes_mb]
    child = os.fork()
    if child == 0:  # holds the outputs, runs nothing
        while True:
            signal.pause()
    try:
        os.kill(child, signal.SIGSTOP)
        job = SimpleNamespace(pids=lambda: [child])
        worker = SimpleNamespace(process=job)
        print(f"{'output':>7} {'merging off ms':>15} {'merging on ms':>14} {'ratio':>6} "
              f"{'ranges':>7}")
        for mb, tensor in zip(sizes_mb, outputs, strict=True):
            positions = sample_positions(11, 0, 0, tensor.numel())
            addresses = torch.tensor(positions, dtype=torch.long) * 4 + tensor.data_ptr()
            wanted = tensor[positions]
            merged = _output_reads._read_merged(worker, child, addresses, 4,  # type: ignore[arg-type]
                                                torch.float32)
            alone = torch.frombuffer(read_process_elements(job, child, addresses.tolist(), 4),  # type: ignore[arg-type]
                                     dtype=torch.float32)
            assert torch.equal(alone, wanted) and (merged is None or torch.equal(merged, wanted))
            gaps = addresses.sort().values.diff()
            ranges = int((gaps > _output_reads.MERGE_GAP_BYTES).sum()) + 1
            region = Region(address=tensor.data_ptr(), dtype="torch.float32",
                            shape=[tensor.numel()], strides=[1], device="cpu")

            def read(region: Region = region, positions: list[int] = positions) -> torch.Tensor:
                return _output_reads._read_sample(worker, child, region,  # type: ignore[arg-type]
                                                  positions)

            merging = _output_reads._read_merged
            try:  # the same read with merging off: what it was before
                _output_reads._read_merged = lambda *_: None  # type: ignore[assignment]
                per_element = _median_ms(read, args.repeats)
            finally:
                _output_reads._read_merged = merging
            sampled = _median_ms(read, args.repeats)
            note = "" if merged is not None else " (too few shared: read element by element)"
            print(f"{mb:>5}MB {per_element:>15.2f} {sampled:>14.2f} "
                  f"{per_element / sampled:>6.2f} {ranges:>7}{note}", flush=True)
        numel = outputs[-1].numel()

        def one_at_a_time() -> list[int]:
            draw = random.Random("11/0/0")
            return sorted(draw.choices(range(numel), k=SAMPLED_ELEMENTS))

        before = _median_ms(one_at_a_time, args.repeats)
        after = _median_ms(lambda: sample_positions(11, 0, 0, numel), args.repeats)
        print(f"positions: {before:.2f} ms one at a time, {after:.2f} ms in one draw "
              f"({before / after:.2f}x)")
    finally:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)


if __name__ == "__main__":
    main()
