"""Is this machine steady enough for verdicts that repeat within 5%? No harness involved.

A plain loop in this one process times a compute-bound op (a float32 matmul on every
core torch uses) in short windows spread over ``--seconds``, and prints each window's
median, then the spread of those medians (max/min). A machine whose own speed moves by
more than the goal between windows cannot give three verdicts of one kernel within 5%
of each other, whatever the harness does (issue 19's repeatability goal;
``bench/timing_fidelity.py``). The steal time the kernel reports for the same span is
printed beside it (time a virtual machine's CPUs were runnable but the host ran
something else).

    .venv/bin/python bench/machine_stability.py [--seconds 90] [--size 768]
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch


def steal_ticks() -> int:
    """Clock ticks of steal time on all CPUs so far (/proc/stat), 0 where not reported."""
    with open("/proc/stat", encoding="ascii") as stat:
        fields = stat.readline().split()
    return int(fields[8]) if len(fields) > 8 else 0


def window_median_ms(a: torch.Tensor, b: torch.Tensor, calls: int) -> float:
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        torch.mm(a, b)
        times.append((time.perf_counter() - started) * 1e3)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=90.0, help="how long to watch")
    parser.add_argument("--size", type=int, default=768, help="square matmul size")
    parser.add_argument("--calls", type=int, default=15, help="calls per window")
    parser.add_argument("--pause", type=float, default=1.5, help="seconds between windows")
    args = parser.parse_args()
    generator = torch.Generator().manual_seed(0)
    a = torch.randn(args.size, args.size, generator=generator)
    b = torch.randn(args.size, args.size, generator=generator)
    window_median_ms(a, b, args.calls)  # warm up
    medians, started, steal_before = [], time.monotonic(), steal_ticks()
    print(f"torch threads {torch.get_num_threads()}, mm {args.size}x{args.size}, "
          f"{args.calls} calls per window", flush=True)
    while time.monotonic() - started < args.seconds:
        medians.append(window_median_ms(a, b, args.calls))
        print(f"{time.monotonic() - started:6.1f} s  median {medians[-1]:8.3f} ms", flush=True)
        time.sleep(args.pause)
    spread = max(medians) / min(medians)
    print(f"\nwindow medians: min {min(medians):.3f} ms, median {statistics.median(medians):.3f} "
          f"ms, max {max(medians):.3f} ms; max/min {spread:.3f} (verdicts within 5% need "
          f"well under 1.05); steal {steal_ticks() - steal_before} ticks")


if __name__ == "__main__":
    main()
