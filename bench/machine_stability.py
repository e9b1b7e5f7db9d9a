"""Is this machine steady enough for verdicts that repeat within 5%? No harness involved.

A plain loop in this one process times a compute-bound op (a float32 matmul on every
core torch uses) in short windows spread over ``--seconds``, and prints each window's
median, then the spread of those medians (max/min). A machine whose own speed moves by
more than the goal between windows cannot give three verdicts of one kernel within 5%
of each other, whatever the harness does (issue 19's repeatability goal;
``bench/timing_fidelity.py``). The steal time the kernel reports for the same span is
printed beside it (time a virtual machine's CPUs were runnable but the host ran
something else).

With ``--paired`` each window also times a memory-bound op (a ReLU over 16M floats), its
calls alternated with the matmul's, and prints the spread of the two ops' ratio beside
each op's own: where the machine's drift is common to both, the ratio is steadier than
either, and a speedup measured against a baseline timed beside the candidate (not one
stored from an earlier minute) would cancel it.

    .venv/bin/python bench/machine_stability.py [--seconds 90] [--size 768] [--paired]
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


def paired_window_ms(a: torch.Tensor, b: torch.Tensor, x: torch.Tensor,
                     calls: int) -> tuple[float, float]:
    """The matmul's and the ReLU's medians over one window of alternated calls."""
    matmul, relu = [], []
    for _ in range(calls):
        started = time.perf_counter()
        torch.mm(a, b)
        middle = time.perf_counter()
        torch.relu(x)
        matmul.append((middle - started) * 1e3)
        relu.append((time.perf_counter() - middle) * 1e3)
    return statistics.median(matmul), statistics.median(relu)


def spread(values: list[float]) -> float:
    return max(values) / min(values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=90.0, help="how long to watch")
    parser.add_argument("--size", type=int, default=768, help="square matmul size")
    parser.add_argument("--calls", type=int, default=15, help="calls per window")
    parser.add_argument("--pause", type=float, default=1.5, help="seconds between windows")
    parser.add_argument("--paired", action="store_true",
                        help="alternate a memory-bound op and print the ratio's spread")
    args = parser.parse_args()
    generator = torch.Generator().manual_seed(0)
    a = torch.randn(args.size, args.size, generator=generator)
    b = torch.randn(args.size, args.size, generator=generator)
    window_median_ms(a, b, args.calls)  # warm up
    if args.paired:
        paired(a, b, args)
        return
    medians, started, steal_before = [], time.monotonic(), steal_ticks()
    print(f"torch threads {torch.get_num_threads()}, mm {args.size}x{args.size}, "
          f"{args.calls} calls per window", flush=True)
    while time.monotonic() - started < args.seconds:
        medians.append(window_median_ms(a, b, args.calls))
        print(f"{time.monotonic() - started:6.1f} s  median {medians[-1]:8.3f} ms", flush=True)
        time.sleep(args.pause)
    print(f"\nwindow medians: min {min(medians):.3f} ms, median {statistics.median(medians):.3f} "
          f"ms, max {max(medians):.3f} ms; max/min {spread(medians):.3f} (verdicts within 5% need "
          f"well under 1.05); steal {steal_ticks() - steal_before} ticks")


def paired(a: torch.Tensor, b: torch.Tensor, args: argparse.Namespace) -> None:
    x = torch.randn(16 * 2**20, generator=torch.Generator().manual_seed(1))
    paired_window_ms(a, b, x, args.calls)  # warm up
    matmul: list[float] = []
    relu: list[float] = []
    started = time.monotonic()
    while time.monotonic() - started < args.seconds:
        mm_ms, relu_ms = paired_window_ms(a, b, x, args.calls)
        matmul.append(mm_ms)
        relu.append(relu_ms)
        print(f"{time.monotonic() - started:6.1f} s  mm {mm_ms:8.3f} ms  relu {relu_ms:8.3f} ms"
              f"  ratio {mm_ms / relu_ms:6.3f}", flush=True)
        time.sleep(args.pause)
    ratios = [m / r for m, r in zip(matmul, relu, strict=True)]
    print(f"\nmax/min over {len(ratios)} windows: mm {spread(matmul):.3f}, relu "
          f"{spread(relu):.3f}, their ratio {spread(ratios):.3f}")


if __name__ == "__main__":
    main()
