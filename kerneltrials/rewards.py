"""A reward for RL training: the verifier's verdict turned into a number in [0, 1].

``reward_from_verdict`` is pure and documented here, so a trainer can reason about it:

* anything but ``correct`` -> 0.0 (incorrect, crashes, cheats, timeouts, …);
* ``correct`` -> 0.25 + 0.75 * clamp((log2(s) + 1) / 3, 0, 1) for speedup ``s`` over
  eager: 0.25 at s <= 0.5, 0.5 at s = 1, 0.75 at s = 2, 1.0 at s >= 4 — correct but slow
  still beats incorrect, and the scale saturates where a kernel is clearly excellent;
* speedups within 5% of 1 count as exactly 1 (a dead band that absorbs timing noise);
* a verdict flagged ``suspicious`` (beyond the speed-of-light bound) earns at most 0.5.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from kerneltrials.verifier.verdict import Verdict

NOISE_BAND = 1.05
SUSPICIOUS_CAP = 0.5


def reward_from_verdict(verdict: Verdict | Mapping[str, Any]) -> float:
    """The reward of one verdict, a ``Verdict`` or its JSON form (see the module docstring)."""
    if isinstance(verdict, Verdict):
        verdict = verdict.to_dict()
    if verdict.get("status") != "correct":
        return 0.0
    speedup = verdict.get("speedup")
    if not isinstance(speedup, int | float) or not math.isfinite(speedup) or speedup <= 0:
        return 0.25
    exponent = math.log2(speedup)
    if abs(exponent) < math.log2(NOISE_BAND):
        exponent = 0.0
    value = 0.25 + 0.75 * min(1.0, max(0.0, (exponent + 1.0) / 3.0))
    return min(value, SUSPICIOUS_CAP) if verdict.get("suspicious") else value


def reward(task: str | Path, source: str, *, backend: str = "cpu", **check_options: Any) -> float:
    """Verify ``source`` on ``task`` (in the sandbox, as ``check`` does) and reward it."""
    from kerneltrials.verifier import check  # heavy (torch): reward_from_verdict needs none

    return reward_from_verdict(check(task, source, backend=backend, **check_options))


def reward_many(pairs: Iterable[tuple[str | Path, str]], *, backend: str = "cpu",
                executor: str = "local", max_concurrency: int = 2,
                options: Any = None, ray_address: str | None = None) -> list[float]:
    """Rewards for many (task, source) pairs, verified through the scheduler.

    ``executor="ray"`` spreads builds and runs over a Ray cluster (a local one by default);
    ``"local"`` runs them in this process's threads. Order follows ``pairs``. An ``error``
    verdict (the machine's fault) is verified again, twice at most (``verify_retrying``).
    The batch is one run: one secret seed (``options.hidden_seed``, else drawn now) for all
    of it, so its candidates share their hidden configurations and each baseline, timed
    once (``CheckOptions.reuse_baselines``).
    """
    # Heavy (the scheduler and the task loader): a trainer scoring stored verdicts with
    # reward_from_verdict imports none of them.
    from kerneltrials.scheduler import resolve_executor
    from kerneltrials.tasks import load_task
    from kerneltrials.verifier import CheckOptions

    check_options = options or CheckOptions(backend=backend)
    seed = (check_options.hidden_seed if check_options.hidden_seed is not None
            else secrets.randbits(31))
    items = [(load_task(task), source) for task, source in pairs]
    kwargs = {"address": ray_address} if executor == "ray" else {}
    with resolve_executor(executor, check_options, **kwargs) as runner:
        with ThreadPoolExecutor(max_workers=max(1, max_concurrency)) as pool:
            verdicts = list(pool.map(
                lambda item: runner.verify_retrying(item[0], item[1], seed), items))
    return [reward_from_verdict(verdict) for verdict in verdicts]
