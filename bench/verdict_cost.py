"""What a verdict costs beyond the kernels it judges: the harness's overhead per check.

For a few candidates whose builds are cache hits (an elementwise op, a softmax, a small
matmul, a level-2 fusion) the script takes one full verdict (default timing, then quick
timing) and splits its wall time by the phases the verdict records (static, build,
correctness, timing, the rest: sandbox and worker start, torch import, teardown). Beside
it, in the same run, the **floor**: one plain Python process that imports torch, loads the
same built libraries, and runs the same calls on the same kind of inputs as many times as
the verdict timed them, with no sandbox, no checks and no second process. It prints
``overhead = verdict - floor`` and the ratio per candidate, then the verdicts per minute
that ``reward_many`` sustains for a batch of cache-hit candidates. Nothing is asserted.

``--baselines shared`` (the default, ``CheckOptions.reuse_baselines``) measures a later
candidate of a run: a first verdict with the same timing times and stores the run's
baselines (and warms the build), and the measured verdict reuses them; the floor then
makes only the calls this verdict timed. ``per-check``: every verdict times its own, as
before. Each invocation draws its own hidden seed, so no baseline of an earlier one is used
(``--hidden-seed`` fixes it: two versions measured on the same configurations).

    .venv/bin/python bench/verdict_cost.py [--batch 20] [--skip-throughput] [--baselines per-check]
"""

from __future__ import annotations

import argparse
import json
import secrets
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kerneltrials.verifier import (  # noqa: E402
    QUICK_TIMING,
    CheckOptions,
    TimingOptions,
    build,
    run,
)
from tests.verifier.candidates import candidate  # noqa: E402

REFERENCE = ROOT / "kerneltrials" / "tasks" / "reference"
CANDIDATES = {  # label -> (task, candidate source)
    "elementwise": ("L1/relu", candidate("relu_ok")),
    "softmax": ("L1/softmax", (REFERENCE / "level1" / "softmax.py").read_text()),
    "matmul": ("L1/matmul_square", (REFERENCE / "level1" / "matmul_square.py").read_text()),
    "fusion": ("L2/conv2d_bn_relu", (REFERENCE / "level2" / "conv2d_bn_relu.py").read_text()),
}
FLOOR = Path(__file__).with_name("_verdict_floor.py")
#: One hidden seed per invocation (``main``): the verdicts and the floor see the same
#: configurations.
RUN = {"hidden_seed": 7, "reuse_baselines": True}


def options(timing: TimingOptions) -> CheckOptions:
    return CheckOptions(backend="cpu", hidden_seed=RUN["hidden_seed"], compile_baseline=False,
                        timing=timing, reuse_baselines=bool(RUN["reuse_baselines"]))


def one_verdict(task: str, source: str, timing: TimingOptions) -> tuple[float, Any, Any]:
    started = time.perf_counter()
    built = build(task, source, options(timing))
    if built.verdict is not None:
        raise SystemExit(f"{task}: the candidate did not build: {built.verdict.reasons}")
    verdict = run(built, options(timing))
    return time.perf_counter() - started, built, verdict


def floor_s(task: str, source: str, built: Any, verdict: Any) -> float:
    """Wall time of the floor process for the calls this verdict made."""
    plan = {
        "task": task, "source": source, "seed": RUN["hidden_seed"],
        "artifacts": [item.to_dict() for item in built.artifacts],
        # A reused baseline was timed by an earlier verdict: none of its calls are this one's.
        "configs": [{"params": config.params,
                     "calls": {side: 0 if stats.reused else stats.n
                               for side, stats in config.times_ms.items()}}
                    for config in verdict.configs],
    }
    started = time.perf_counter()
    result = subprocess.run([sys.executable, str(FLOOR)], input=json.dumps(plan), text=True,
                            capture_output=True, cwd=ROOT)
    if result.returncode != 0:
        raise SystemExit(f"floor failed on {task}: {result.stderr[-2000:]}")
    return time.perf_counter() - started


def phases(verdict: Any, total_s: float) -> str:
    known = {name: verdict.durations_s.get(name, 0.0)
             for name in ("static", "build", "correctness", "timing")}
    rest = max(0.0, total_s - sum(known.values()))
    return " ".join(f"{name} {seconds:5.2f}" for name, seconds in
                    [*known.items(), ("other", rest)])


def cost_table(labels: list[str]) -> None:
    print("candidate     timing   verdict_s  floor_s  overhead_s  ratio   phases (s)")
    for label in labels:
        task, source = CANDIDATES[label]
        one_verdict(task, source, QUICK_TIMING)  # warms the build cache: later builds hit
        for name, timing in (("default", TimingOptions()), ("quick", QUICK_TIMING)):
            if RUN["reuse_baselines"] and name == "default":
                one_verdict(task, source, timing)  # the run's first: it stores the baselines
            total_s, built, verdict = one_verdict(task, source, timing)
            floor = floor_s(task, source, built, verdict)
            print(f"{label:12s}  {name:7s}  {total_s:8.2f}  {floor:7.2f}  "
                  f"{total_s - floor:10.2f}  {total_s / floor:5.1f}x  "
                  f"{phases(verdict, total_s)}  [{verdict.status}]", flush=True)


def throughput(batch: int) -> None:
    from kerneltrials.rewards import reward_many

    labels = list(CANDIDATES)
    pairs = [CANDIDATES[labels[i % len(labels)]] for i in range(batch)]
    started = time.perf_counter()
    # A seed of its own: the batch is one run, whose first candidates time its baselines.
    batch_options = replace(options(TimingOptions()), hidden_seed=None)
    rewards = reward_many(pairs, backend="cpu", options=batch_options)
    minutes = (time.perf_counter() - started) / 60
    print(f"reward_many: {batch} cache-hit candidates in {minutes * 60:.1f} s = "
          f"{batch / minutes:.1f} verdicts/min (rewards {sorted(set(round(r, 2) for r in rewards))})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=20, help="candidates for reward_many")
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--hidden-seed", type=int, default=None,
                        help="the run's hidden seed (default: a fresh one), e.g. to compare "
                             "two versions of the harness on the same configurations; a "
                             "later invocation with the same seed reuses the stored "
                             "baselines of an earlier one (that is the point of sharing)")
    parser.add_argument("--skip-cost", action="store_true", help="only reward_many's throughput")
    parser.add_argument("--only", choices=sorted(CANDIDATES), action="append",
                        help="measure only these candidates (repeatable)")
    parser.add_argument("--baselines", choices=("shared", "per-check"), default="shared",
                        help="shared: a later candidate of a run, reusing its baselines "
                             "(the default); per-check: every verdict times its own")
    args = parser.parse_args()
    RUN.update(hidden_seed=args.hidden_seed if args.hidden_seed is not None else secrets.randbits(31),
               reuse_baselines=args.baselines == "shared")
    print(f"baselines {args.baselines}, hidden seed {RUN['hidden_seed']}", flush=True)
    if not args.skip_cost:
        cost_table(args.only or list(CANDIDATES))
    if not args.skip_throughput:
        throughput(args.batch)


if __name__ == "__main__":
    main()
