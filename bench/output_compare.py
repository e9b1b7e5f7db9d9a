"""What the parent's comparison of one output with the reference's costs.

The parent compares every guarded call's outputs (the first call, the repeat, the
poisoned replay, the re-addressed call) with the reference's, in its own process, while
both workers wait: on a ReLU check it was about a third of the parent's CPU time in the
correctness stage. This times ``compare_tensor`` on float32 outputs of a few sizes that
pass (errors far inside the tolerance: the common case) and that fail, best of
``--repeats``. ``--compare-with DIR`` times the same in another checkout of the repository
(same venv), alternated round by round with this one, and prints the ratio. Nothing is
asserted. Run it on an otherwise idle machine.

    .venv/bin/python bench/output_compare.py [--repeats 15] [--rounds 2] [--compare-with DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIZES = (1 << 20, 1 << 22, 1 << 24)
#: Run in the checkout under test (its ``kerneltrials`` first on the path): prints, per
#: size and case, the best time in ms.
MEASURE = r"""
import json, sys, time, torch
from kerneltrials.verifier.harness._compare import Comparison, compare_tensor
repeats, sizes = int(sys.argv[1]), json.loads(sys.argv[2])
torch.manual_seed(0)
found = {}
for n in sizes:
    reference = torch.randn(n)
    cases = {"passes": reference + 1e-6 * torch.randn(n), "fails": reference.clone()}
    cases["fails"][n // 2] += 1.0
    for case, candidate in cases.items():
        best = float("inf")
        for _ in range(repeats):
            started = time.perf_counter()
            result = Comparison()
            compare_tensor(reference, candidate, 1e-4, 1e-4, result)
            best = min(best, time.perf_counter() - started)
        assert result.passed == (case == "passes"), (case, result.reasons)
        found[f"{n}:{case}"] = best * 1000
print(json.dumps(found))
"""


def measure(checkout: Path, repeats: int) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    done = subprocess.run([sys.executable, "-c", MEASURE, str(repeats), json.dumps(SIZES)],
                          cwd=checkout, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"{checkout}: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15, help="comparisons per case (best kept)")
    parser.add_argument("--rounds", type=int, default=2, help="alternations with --compare-with")
    parser.add_argument("--compare-with", type=Path, default=None, metavar="DIR",
                        help="another checkout of the repository, measured alternately")
    args = parser.parse_args()
    checkouts = [ROOT] + ([args.compare_with.resolve()] if args.compare_with else [])
    best: dict[Path, dict[str, float]] = {checkout: {} for checkout in checkouts}
    for _ in range(max(1, args.rounds if args.compare_with else 1)):
        for checkout in reversed(checkouts):
            for key, ms in measure(checkout, args.repeats).items():
                best[checkout][key] = min(ms, best[checkout].get(key, float("inf")))
    header = "elements    case      this (ms)" + ("   other (ms)   other/this" if args.compare_with else "")
    print(header)
    for key, ms in best[ROOT].items():
        n, case = key.split(":")
        line = f"{int(n):>9,}   {case:7s} {ms:10.2f}"
        if args.compare_with:
            other = best[checkouts[1]][key]
            line += f"   {other:10.2f}   {other / ms:9.2f}x"
        print(line)


if __name__ == "__main__":
    main()
