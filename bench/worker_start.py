"""CPU a verifier worker spends before it can answer its first request, measured in one run.

Every check starts a reference and a candidate worker; each imports torch and warms up
(the candidate's warm-up imports dynamo) before it says hello. This prints, per role, the
CPU (user + system, from ``getrusage`` of the finished child) of that start-up the way the
worker does it now (``python -m kerneltrials.verifier.worker``: the collector paused
during the imports, then frozen) next to the same imports and warm-up with the collector
running throughout (the worker before 2026-11-28). Rows are interleaved round by round, so
machine noise hits both alike. No sandbox: bench/sandbox_overhead.py measures that part.

Usage: python bench/worker_start.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys

#: The worker's imports and warm-up, with the collector as Python leaves it.
COLLECTOR_ON = ("import kerneltrials.verifier.protocol, kerneltrials.verifier.worker._dispatch; "
                "from kerneltrials.verifier.worker._ops import warm_up; warm_up({role!r})")
#: What ``python -m kerneltrials.verifier.worker ROLE`` runs before its hello.
AS_SHIPPED = "import kerneltrials.verifier.worker.__main__ as m; m._start({role!r})"

ROLES = ("reference", "candidate")


def child_cpu_s(code: str) -> float:
    """User + system CPU seconds of one ``python -c code``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", code], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    samples: dict[tuple[str, str], list[float]] = {}
    for round_index in range(args.rounds):
        for role in ROLES:
            for label, code in (("collector on", COLLECTOR_ON), ("as shipped", AS_SHIPPED)):
                samples.setdefault((role, label), []).append(child_cpu_s(code.format(role=role)))
        print(f"round {round_index + 1}/{args.rounds} done", file=sys.stderr)
    print("| role | collector on during start-up | as shipped | saved |")
    print("|---|---|---|---|")
    for role in ROLES:
        on = statistics.median(samples[(role, "collector on")])
        shipped = statistics.median(samples[(role, "as shipped")])
        print(f"| {role} | {on:.2f} s | {shipped:.2f} s | {on - shipped:.2f} s "
              f"({(on - shipped) / on:.0%}) |")


if __name__ == "__main__":
    main()
