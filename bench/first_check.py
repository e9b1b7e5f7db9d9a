"""What a process's first check costs: ``kerneltrials check`` once, and ``kerneltrials.check``
called once from a fresh Python, both on a build-cache hit.

Every CLI call is a fresh process, and so is the first check of every script, notebook
and Ray worker: it pays imports (torch in the parent, torch and the worker in the
process sandbox's zygote) that later checks in the same process do not. This prints the
wall time of each way of asking, median over rounds, with the verdict's own ``total``
beside it (the rest is the parent's imports before ``check`` starts). ``--compare-with
DIR`` runs the same commands from another checkout of the repository (same venv, same
build cache), alternated round by round with this one, so machine noise hits both alike,
and prints the ratio. Nothing is asserted. Run it on an otherwise idle machine.

    .venv/bin/python bench/first_check.py [--rounds 4] [--compare-with /path/to/old/checkout]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TASK = "L1/relu"
SOURCE = ROOT / "kerneltrials" / "tasks" / "reference" / "level1" / "relu.py"
SEED = "20240"
API = ("import json, sys, kerneltrials; from kerneltrials.verifier import QUICK_TIMING; "
       "v = kerneltrials.check(sys.argv[1], open(sys.argv[2]).read(), backend='cpu', "
       "hidden_seed=int(sys.argv[3]), timing=QUICK_TIMING, compile_baseline=False); "
       "print(json.dumps(v.to_dict()))")
CLI = "import sys; from kerneltrials.cli import main; sys.argv[0] = 'kerneltrials'; main()"


def _command(way: str, candidate: Path) -> list[str]:
    if way == "api":
        return [sys.executable, "-c", API, TASK, str(candidate), SEED]
    return [sys.executable, "-c", CLI, "check", TASK, str(candidate), "--quick",
            "--no-compile-baseline", "--hidden-seed", SEED, "--json"]


def one(way: str, checkout: Path, candidate: Path) -> tuple[float, float]:
    """(wall seconds of the whole process, the verdict's own total)."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    started = time.perf_counter()
    done = subprocess.run(_command(way, candidate), cwd=checkout, env=env, capture_output=True,
                          text=True, timeout=600)
    wall = time.perf_counter() - started
    try:
        verdict = json.loads(done.stdout)
    except json.JSONDecodeError:
        raise SystemExit(f"{way} from {checkout} printed no verdict:\n{done.stderr[-2000:]}") from None
    if verdict["status"] != "correct":
        raise SystemExit(f"{way} from {checkout}: {verdict['status']} {verdict['reasons']}")
    return wall, verdict["durations_s"]["total"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--compare-with", type=Path, default=None,
                        help="another checkout of this repository, run alternated with this one")
    args = parser.parse_args()
    checkouts = {"this": ROOT}
    if args.compare_with is not None:
        checkouts = {"other": args.compare_with.resolve(), **checkouts}
    with tempfile.TemporaryDirectory() as scratch:
        candidate = Path(scratch) / "relu.py"
        candidate.write_text(SOURCE.read_text())
        for label, checkout in checkouts.items():  # the build, then warm caches: not measured
            one("cli", checkout, candidate)
            print(f"warmed ({label}: {checkout})", flush=True)
        measured: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for round_number in range(args.rounds):
            for way in ("cli", "api"):
                for label, checkout in checkouts.items():
                    wall, total = one(way, checkout, candidate)
                    measured.setdefault((way, label), []).append((wall, total))
                    print(f"round {round_number + 1} {way:3s} {label:5s} wall {wall:6.2f} s  "
                          f"verdict total {total:5.2f} s", flush=True)
    print("\nmedian wall s (verdict total s) of a fresh process's first check, cache hit:")
    for way in ("cli", "api"):
        row = {label: (statistics.median(w for w, _ in measured[(way, label)]),
                       statistics.median(t for _, t in measured[(way, label)]))
               for label in checkouts}
        text = "  ".join(f"{label} {wall:.2f} ({total:.2f})" for label, (wall, total) in row.items())
        ratio = (f"  other/this {row['other'][0] / row['this'][0]:.2f}x"
                 if "other" in row else "")
        print(f"  {way}: {text}{ratio}")


if __name__ == "__main__":
    main()
