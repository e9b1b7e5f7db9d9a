"""How the GPU suite checks a candidate: the cuda backend, one recorded hidden seed."""

from __future__ import annotations

from typing import Any

import kerneltrials
from kerneltrials.verifier import QUICK_TIMING, CheckOptions, TimingOptions, Verdict

HIDDEN_SEED = 11


def check_cuda(task: str, source: str, *, quick: bool = True, profile: str = "cpu",
               compile_baseline: bool = False, **fields: Any) -> Verdict:
    """The ``cpu`` profile's small shapes by default: a verdict in seconds, enough to
    judge correctness and the cheats; the timing tests ask for the ``gpu`` profile."""
    timing = QUICK_TIMING if quick else TimingOptions()
    options = CheckOptions(backend="cuda", profile=profile, timing=timing,
                           compile_baseline=compile_baseline, hidden_seed=HIDDEN_SEED,
                           **fields)
    return kerneltrials.check(task, source, options=options)


def summary(verdict: Verdict) -> dict[str, Any]:
    """What the report shows of a verdict."""
    medians = {config.name: {side: stats.median for side, stats in config.times_ms.items()}
               for config in verdict.configs}
    return {"status": str(verdict.status), "speedup": verdict.speedup,
            "reasons": list(verdict.reasons)[:6], "medians_ms": medians}
