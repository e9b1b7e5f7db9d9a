"""How repeatable CPU timings are with each OpenMP setup of the timed workers.

``native``: every process keeps the runtime it links (torch: libgomp; fast-path OpenMP
candidates: LLVM libomp beside it). ``libomp`` (the default): both workers preload libomp
with a bounded spin and rest between batches (kerneltrials/verifier/harness/_openmp.py).

The same candidates are checked several times per setup, the setups interleaved in one
run so that drifts of the machine hit both; the script prints, per setup and candidate,
the eager and candidate medians and the speedup of each run, and their spread (max/min
over the runs). Nothing is asserted.

    .venv/bin/python bench/timing_stability.py [--repeats 4]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.verifier.candidates import candidate  # noqa: E402

MODES = ("native", "libomp")
REFERENCE = ROOT / "kerneltrials" / "tasks" / "reference"
CANDIDATES = {  # task -> candidate file; small and large OpenMP kernels
    "L1/relu": None,  # the shared test candidate (OpenMP, elementwise)
    "L1/softmax": REFERENCE / "level1" / "softmax.py",
    "L2/conv2d_bn_relu": REFERENCE / "level2" / "conv2d_bn_relu.py",
}


def check(task: str, path: Path, mode: str) -> dict:
    env = {**os.environ, "KERNELTRIALS_OPENMP": mode}
    command = [str(Path(sys.executable).with_name("kerneltrials")), "check", task, str(path),
               "--quick",
               "--hidden-seed", "7", "--no-compile-baseline", "--json"]
    result = subprocess.run(command, env=env, capture_output=True, text=True, cwd=ROOT)
    if result.returncode != 0:
        raise SystemExit(f"check failed ({mode}, {task}): {result.stderr[-2000:]}")
    return json.loads(result.stdout)


def medians(verdict: dict, side: str) -> list[float]:
    return [config["times_ms"][side]["median"] for config in verdict["configs"]
            if side in config.get("times_ms", {})]


def spread(values: list[float]) -> float:
    return max(values) / min(values) if values and min(values) > 0 else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        files = {}
        for task, path in CANDIDATES.items():
            if path is None:
                path = Path(scratch) / "relu_ok.py"
                path.write_text(candidate("relu_ok"))
            files[task] = path
        runs: dict[tuple[str, str], list[dict]] = {}
        for repeat in range(args.repeats):
            for mode in MODES if repeat % 2 == 0 else reversed(MODES):
                for task, path in files.items():
                    verdict = check(task, path, mode)
                    runs.setdefault((mode, task), []).append(verdict)
                    print(f"  run {repeat + 1} {mode:7} {task:20} {verdict['status']:13} "
                          f"speedup {verdict.get('speedup') or float('nan'):.3f}", flush=True)

    print(f"\n{'setup':8} {'task':20} {'eager spread':>13} {'cand. spread':>13} "
          f"{'speedups (per run)':>30}")
    for (mode, task), verdicts in sorted(runs.items(), key=lambda item: (item[0][1], item[0][0])):
        # The spread of each configuration's median over runs; the worst configuration.
        eager = [medians(v, "eager") for v in verdicts]
        cand = [medians(v, "candidate") for v in verdicts]
        eager_spread = max(spread(list(column)) for column in zip(*eager, strict=True))
        cand_spread = max(spread(list(column)) for column in zip(*cand, strict=True))
        speedups = [v.get("speedup") or float("nan") for v in verdicts]
        shown = " ".join(f"{s:.2f}" for s in speedups)
        print(f"{mode:8} {task:20} {eager_spread:12.2f}x {cand_spread:12.2f}x   {shown}"
              f"  (median {statistics.median(speedups):.2f})")


if __name__ == "__main__":
    main()
