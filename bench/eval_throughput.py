"""Verdicts per minute: the pipelined Ray schedule against strictly one-after-another.

Also: the spread of one candidate's speedup measured alone, and measured while builds
run through the same scheduler (the node gate keeps builds off the cores during timing).
Everything is measured side by side in one run; ratios are printed, not asserted.

    .venv/bin/python bench/eval_throughput.py [--candidates 6] [--repeats 5]

Each candidate gets a unique comment in its C++ source, so every build is cold.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kerneltrials.scheduler import LocalExecutor, resolve_executor  # noqa: E402
from kerneltrials.tasks import load_task  # noqa: E402
from kerneltrials.verifier import QUICK_TIMING, CheckOptions  # noqa: E402
from tests.verifier.candidates import candidate  # noqa: E402

TASK = load_task("L1/relu")
OPTIONS = CheckOptions(timing=QUICK_TIMING, compile_baseline=False, hidden_seed=7)


def salted(function: str = "relu_ok") -> str:
    """The shared test candidate with a unique comment: a cold build every time."""
    return candidate(function, salt=uuid.uuid4().hex)


def run_all(executor, sources: list[str], concurrency: int) -> tuple[float, list[dict]]:
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        verdicts = list(pool.map(lambda s: executor.verify(TASK, s, 7), sources))
    return time.perf_counter() - started, verdicts


def speedups_alone(executor, source: str, repeats: int) -> list[float]:
    return [executor.verify(TASK, source, 7).speedup for _ in range(repeats)]


def speedups_with_builds(executor, source: str, repeats: int) -> list[float]:
    stop = threading.Event()

    def keep_building() -> None:
        while not stop.is_set():
            executor.verify(TASK, salted("relu_wrong"), 7)

    background = threading.Thread(target=keep_building, daemon=True)
    background.start()
    try:
        return [executor.verify(TASK, source, 7).speedup for _ in range(repeats)]
    finally:
        stop.set()
        background.join(timeout=600)


def spread(values: list[float]) -> str:
    values = [v for v in values if v]
    if len(values) < 2:
        return "n/a"
    return (f"median {statistics.median(values):.3f}x, stdev {statistics.stdev(values):.3f}, "
            f"range {min(values):.3f}-{max(values):.3f} (n={len(values)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidates", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    os.environ.setdefault("KERNELTRIALS_CACHE", tempfile.mkdtemp(prefix="kt-bench-cache-"))
    sequential = LocalExecutor(OPTIONS)
    seq_s, _ = run_all(sequential, [salted() for _ in range(args.candidates)], 1)
    with resolve_executor("ray", OPTIONS) as ray_executor:
        pipe_s, verdicts = run_all(ray_executor, [salted() for _ in range(args.candidates)], 2)
        warm = salted()
        ray_executor.verify(TASK, warm, 7)  # build once: the spread runs hit the cache
        alone = speedups_alone(ray_executor, warm, args.repeats)
        busy = speedups_with_builds(ray_executor, warm, args.repeats)
    n = args.candidates
    print(f"{'schedule':<24}{'verdicts':>9}{'seconds':>10}{'verdicts/min':>14}")
    print(f"{'one after another':<24}{n:>9}{seq_s:>10.1f}{60 * n / seq_s:>14.2f}")
    print(f"{'pipelined (Ray)':<24}{n:>9}{pipe_s:>10.1f}{60 * n / pipe_s:>14.2f}")
    print(f"pipelined / sequential throughput: {seq_s / pipe_s:.2f}x  "
          f"(statuses: {sorted({v.status for v in verdicts})})")
    print(f"speedup measured alone:        {spread(alone)}")
    print(f"speedup measured under builds: {spread(busy)}")


if __name__ == "__main__":
    main()
