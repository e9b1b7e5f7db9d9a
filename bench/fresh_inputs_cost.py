"""What fresh inputs per timed call cost a verdict, measured side by side in one run.

For a few honest candidates whose builds are cache hits, the script takes verdicts with
``fresh_inputs`` off and on, alternating (off, on, off, on, ...), and prints per candidate
the median wall time of each, their ratio, the candidate's speedup under each, and how many
timed calls were read out of the frozen worker (each read call is one more reference call
when inputs are fresh). Nothing is asserted: this machine is shared and noisy.

    .venv/bin/python bench/fresh_inputs_cost.py [--repeats 2] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kerneltrials.verifier import QUICK_TIMING, CheckOptions, TimingOptions, check  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verdict_cost import CANDIDATES  # noqa: E402  (the same four cache-hit candidates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2, help="verdicts per setting")
    parser.add_argument("--quick", action="store_true", help="quick timing (default: full)")
    args = parser.parse_args()
    timing = QUICK_TIMING if args.quick else TimingOptions()
    base = CheckOptions(backend="cpu", hidden_seed=7, compile_baseline=False, timing=timing)
    check(*CANDIDATES["elementwise"], options=base)  # builds and imports warm, not measured
    print(f"{'candidate':<12} {'off s':>7} {'on s':>7} {'on/off':>7} {'speedup off':>12} "
          f"{'speedup on':>11} {'reads on':>9}")
    for label, (task, source) in CANDIDATES.items():
        walls: dict[bool, list[float]] = {False: [], True: []}
        speedups: dict[bool, list[float]] = {False: [], True: []}
        reads = "-"
        for _ in range(args.repeats):
            for fresh in (False, True):
                started = time.perf_counter()
                verdict = check(task, source, options=replace(base, fresh_inputs=fresh))
                walls[fresh].append(time.perf_counter() - started)
                if verdict.status != "correct":
                    raise SystemExit(f"{label}: {verdict.status} {verdict.reasons[:3]}")
                speedups[fresh].append(verdict.speedup or 0.0)
                if fresh:
                    info = verdict.isolation.get("timed_output_reads") or {}
                    reads = f"{info.get('calls_read', '-')}/{info.get('calls_timed', '-')}"
        off, on = statistics.median(walls[False]), statistics.median(walls[True])
        print(f"{label:<12} {off:>7.1f} {on:>7.1f} {on / off:>7.2f} "
              f"{statistics.median(speedups[False]):>12.2f} "
              f"{statistics.median(speedups[True]):>11.2f} {reads:>9}", flush=True)


if __name__ == "__main__":
    main()
