"""Does a verdict's speedup follow the work a kernel does? Issue 19's fidelity check.

Two ReLU candidates share one extension, so one machine code: each element goes through
four chains of multiply-adds whose length comes in at run time (``rounds``), and the
chains' value is added times zero (IEEE forbids folding that away) so the output is
exactly ReLU's. One candidate asks for ``--rounds`` per element, the other for twice as
many: the second does 2x the arithmetic and nothing else differs.

The script checks each candidate ``--repeats`` times (default timing, the verifier as a
user runs it, interleaved so a drift of the machine hits both), and prints per verdict
the speedup over eager and the candidate's medians, then:

- **work ratio**: the 1x candidate's speedup over the 2x one's (goal 2.0 +- 0.2), from
  the geomeans of the verdicts' speedups; and the candidates' median ratio;
- **repeatability**: max/min of one candidate's speedups over its verdicts (goal: within
  5%, i.e. at most 1.05);
- **in-process ratio**: the same two calls timed by a plain loop in this process on the
  same inputs, what the kernels' own ratio is on this machine;
- with shared baselines, **beside live eager**: the repeatability the speedups would have
  if each verdict divided by the median of the few eager batches it times beside its
  candidate (``recheck_median``; the run's first verdict: the baseline it timed) instead
  of the run's one stored baseline. Where the machine's drift is common to both sides,
  this is the steadier figure; where the eager batches' own noise dominates, it is not.

Nothing is asserted (these machines are shared and noisy); run it on an idle machine.

    .venv/bin/python bench/timing_fidelity.py [--repeats 3] [--rounds 8] [--baselines per-check]
"""

from __future__ import annotations

import argparse
import math
import secrets
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kerneltrials.verifier import CheckOptions, TimingOptions, build, run  # noqa: E402

TASK = "L1/relu"
SEED = 7

WORK_CPP = r'''
#include <torch/extension.h>

torch::Tensor relu_work(torch::Tensor x, int64_t rounds) {
    auto in = x.contiguous();
    auto out = torch::empty_like(in);
    const float* src = in.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    const int64_t n = in.numel();
    #pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) {
        const float v = src[i];
        float a = v, b = v + 1.f, c = v + 2.f, d = v + 3.f;  // four chains: the core stays busy
        for (int64_t r = 0; r < rounds; ++r) {
            a = a * 0.999f + 0.001f; b = b * 0.999f + 0.001f;
            c = c * 0.999f + 0.001f; d = d * 0.999f + 0.001f;
        }
        dst[i] = (v > 0.f ? v : 0.f) + (a + b + c + d) * 0.f;
    }
    return out;
}
'''

TEMPLATE = '''
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

ext = load_inline(name="kt_bench_fidelity", cpp_sources=[{source!r}], functions=["relu_work"],
                  extra_cflags=["-O2", "-fopenmp"], extra_ldflags=["-fopenmp"])
ROUNDS = {rounds}


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return ext.relu_work(x, ROUNDS)
'''


def source(rounds: int) -> str:
    return TEMPLATE.format(source=WORK_CPP, rounds=rounds)


def geomean(values: list[float]) -> float:
    return math.exp(statistics.fmean(math.log(v) for v in values))


#: The run's secret: drawn per invocation (``main``), so a baseline stored by an earlier
#: invocation is never reused; one for all verdicts of an invocation, as in one eval run.
RUN = {"hidden_seed": SEED, "reuse_baselines": True}


def options() -> CheckOptions:
    return CheckOptions(backend="cpu", hidden_seed=RUN["hidden_seed"], compile_baseline=False,
                        timing=TimingOptions(), reuse_baselines=bool(RUN["reuse_baselines"]))


def built_candidate(rounds: int) -> Any:
    built = build(TASK, source(rounds), options())
    if built.verdict is not None:
        raise SystemExit(f"the {rounds}-round candidate did not build: {built.verdict.reasons}")
    return built


def one_verdict(rounds: int) -> Any:
    verdict = run(built_candidate(rounds), options())
    if verdict.status != "correct" or verdict.speedup is None:
        raise SystemExit(f"the {rounds}-round candidate is {verdict.status}: {verdict.reasons}")
    return verdict


def candidate_medians(verdict: Any) -> list[float]:
    return [config.times_ms["candidate"].median for config in verdict.configs]


def live_eager_speedup(verdict: Any) -> float:
    """The speedup over the eager median this verdict timed itself (see the docstring)."""
    ratios = []
    for config in verdict.configs:
        eager = config.times_ms["eager"]
        live = eager.recheck_median if eager.recheck_median is not None else eager.median
        ratios.append(live / config.times_ms["candidate"].median)
    return geomean(ratios)


def in_process_ratio(rounds: int, calls: int = 40) -> float:
    """The 2x kernel's time over the 1x kernel's, by a plain loop here: the library the
    verdicts loaded (one build serves both: the C++ source is the same)."""
    import tempfile

    from kerneltrials.tasks import load_task
    from kerneltrials.tasks._instantiate import load_task_module, make_inputs
    from kerneltrials.verifier.worker._intercept import import_with_artifacts

    built = built_candidate(rounds)
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "candidate.py"
        path.write_text(source(rounds))
        module = import_with_artifacts(path, "cpu", [(item.request, item.artifact)
                                                     for item in built.artifacts])
    kernel = module.ext.relu_work
    task = load_task(TASK)
    ratios = []
    for overrides in task.public_configs("cpu"):
        inputs = make_inputs(load_task_module(task, overrides), task, SEED, "cpu")
        times = {}
        for factor in (1, 2, 1, 2):  # twice each, the later loops kept: warm both first
            started = time.perf_counter()
            for _ in range(calls):
                kernel(*inputs, rounds * factor)
            times[factor] = time.perf_counter() - started
        ratios.append(times[2] / times[1])
    return geomean(ratios)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="verdicts per candidate")
    # 8 and 16 rounds take about 9 and 17 ms a call on L1/relu's first configuration here
    # (a plain loop: 1.97-2.0x); much longer chains grew faster than their length here.
    parser.add_argument("--rounds", type=int, default=8,
                        help="multiply-add rounds per element (four chains) of the 1x candidate")
    parser.add_argument("--baselines", choices=("shared", "per-check"), default="shared",
                        help="shared: the run's one baseline for every verdict (the default, "
                             "CheckOptions.reuse_baselines); per-check: each verdict times its own")
    args = parser.parse_args()
    RUN.update(hidden_seed=secrets.randbits(31), reuse_baselines=args.baselines == "shared")
    print(f"baselines {args.baselines}, hidden seed {RUN['hidden_seed']}", flush=True)
    verdicts: dict[int, list[Any]] = {1: [], 2: []}
    for repeat in range(args.repeats):
        for factor in (1, 2) if repeat % 2 == 0 else (2, 1):
            started = time.perf_counter()
            verdict = one_verdict(args.rounds * factor)
            verdicts[factor].append(verdict)
            medians = " ".join(f"{m:.3f}" for m in candidate_medians(verdict))
            print(f"run {repeat + 1} {factor}x work: speedup {verdict.speedup:.3f} "
                  f"(interval {verdict.speedup_interval}), candidate medians ms {medians} "
                  f"[{time.perf_counter() - started:.0f} s]", flush=True)
    speedup = {factor: geomean([v.speedup for v in runs]) for factor, runs in verdicts.items()}
    median_ratio = geomean([b / a for one, two in zip(verdicts[1], verdicts[2], strict=True)
                            for a, b in zip(candidate_medians(one), candidate_medians(two),
                                            strict=True)])
    print(f"\nwork ratio (speedup 1x / speedup 2x): {speedup[1] / speedup[2]:.3f} "
          f"(goal 2.0 +- 0.2); candidate medians 2x / 1x: {median_ratio:.3f}")
    for factor, runs in verdicts.items():
        values = [v.speedup for v in runs]
        print(f"repeatability {factor}x: speedups {' '.join(f'{s:.3f}' for s in values)}, "
              f"max/min {max(values) / min(values):.3f} (goal <= 1.05)")
    if args.baselines == "shared":
        for factor, runs in verdicts.items():
            values = [live_eager_speedup(v) for v in runs]
            print(f"beside live eager {factor}x: speedups {' '.join(f'{s:.3f}' for s in values)}, "
                  f"max/min {max(values) / min(values):.3f}")
    print(f"in-process ratio (plain loop, 2x / 1x): {in_process_ratio(args.rounds):.3f}")


if __name__ == "__main__":
    main()
