"""What the check's correctness stage costs when each worker draws the factor bank once.

Both workers draw a bank of random factors that makes every timed call's inputs fresh
(kerneltrials/verifier/worker/_fresh.py). They drew it at each configuration whose
largest floating input outgrew it; the parent now sizes every configuration on the meta
device and sends the length that serves them all (kerneltrials/verifier/harness/_bank.py).
This script checks reference solutions of this repository (warm build cache: their
libraries are built by a warm-up check, reported, not compared) with the sweep's shortest
timing, both ways alternated in one run:

  per-config   the parent sends no length, as before: each larger configuration redraws;
  once         as the harness does now.

Printed per task: the correctness stage's mean seconds both ways, their ratio, and the
whole verdict's. Nothing is asserted.

    .venv/bin/python bench/bank_once.py [--tasks L1/sum_dim L1/layernorm ...] [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import kerneltrials  # noqa: E402
from kerneltrials.verifier import CheckOptions, TimingOptions  # noqa: E402
from kerneltrials.verifier.harness import _stages  # noqa: E402

REFERENCE = ROOT / "kerneltrials" / "tasks" / "reference"
#: Tasks whose hidden configurations outgrow the first (L1/sum_dim most), and one whose
#: first configuration is its largest (L1/relu: nothing to gain, a control).
DEFAULT_TASKS = ["L1/sum_dim", "L1/layernorm", "L1/matvec", "L1/groupnorm", "L1/relu"]
SWEEP = TimingOptions(warmup_calls=1, min_calls=1, max_calls=1, max_wall_s=0.1,
                      batch_target_s=0.01)
OPTIONS = CheckOptions(timing=SWEEP, compile_baseline=False, seeds=1)


def solution(task: str) -> str:
    level, name = task.removeprefix("L").split("/")
    return (REFERENCE / f"level{level}" / f"{name}.py").read_text()


def check_once(task: str, source: str) -> tuple[float, float]:
    """(correctness stage s, whole verdict s) of one check."""
    started = time.perf_counter()
    verdict = kerneltrials.check(task, source, backend="cpu", hidden_seed=20240,
                                 compile_baseline=False, options=OPTIONS)
    if verdict.status != "correct":
        raise SystemExit(f"{task}: {verdict.status} {verdict.reasons[:3]}")
    return verdict.durations_s["correctness"], time.perf_counter() - started


def per_config() -> Callable[..., int]:
    return lambda *args, **kwargs: 0  # no length on the wire: the workers grow the bank


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="+", default=DEFAULT_TASKS)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"{'task':16} {'correctness per-config':>24} {'once':>8} {'ratio':>6} "
          f"{'verdict per-config':>20} {'once':>8}")
    for task in args.tasks:
        source = solution(task)
        warm = check_once(task, source)
        print(f"  (warm-up {task}: verdict {warm[1]:.1f} s)", file=sys.stderr)
        runs: dict[str, list[tuple[float, float]]] = {"per-config": [], "once": []}
        for _ in range(args.rounds):
            for way in ("per-config", "once"):
                if way == "per-config":
                    with mock.patch.object(_stages, "bank_length", per_config()):
                        runs[way].append(check_once(task, source))
                else:
                    runs[way].append(check_once(task, source))
        before = statistics.mean(c for c, _ in runs["per-config"])
        after = statistics.mean(c for c, _ in runs["once"])
        whole_before = statistics.mean(w for _, w in runs["per-config"])
        whole_after = statistics.mean(w for _, w in runs["once"])
        print(f"{task:16} {before:22.2f} s {after:6.2f} s {before / after:5.2f}x "
              f"{whole_before:18.2f} s {whole_after:6.2f} s", flush=True)


if __name__ == "__main__":
    main()
