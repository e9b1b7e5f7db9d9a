"""Timing, driven by the parent: candidate and baselines interleaved in shuffled order.

The candidate worker times its own calls; the parent also timestamps every batch it
orders over the pipe, and a batch whose in-process total exceeds the outside wall time
cannot be honest (docs/design/timing.md).
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field

from kerneltrials.tasks import ShapeConfig
from kerneltrials.verifier import protocol as wire
from kerneltrials.verifier._options import TimingOptions
from kerneltrials.verifier.harness._failures import candidate_failure, reference_failure
from kerneltrials.verifier.harness._jobs import ForgedReply, JobDied, WorkerFailed, WorkerJob
from kerneltrials.verifier.harness._judge import judge_timing_reply
from kerneltrials.verifier.harness._session import Outcome, Session
from kerneltrials.verifier.harness._stats import iqr, median, median_rse
from kerneltrials.verifier.verdict import Status, TimingStats

#: Slack for the outside-versus-inside cross-check: pipe and scheduling latency.
OUTER_SLACK_S = 0.005
#: Timed candidate batches whose output at one random call is compared with the reference.
SPOT_CHECKED_BATCHES = 2


@dataclass
class Side:
    name: str  # "candidate", "eager", "compile"
    worker: WorkerJob
    mode: str
    samples_ms: list[float] = field(default_factory=list)
    wall_s: float = 0.0
    batch: int = 1
    spots_left: int = 0  # spot checks still to do on this configuration (candidate only)

    def done(self, options: TimingOptions) -> bool:
        count = len(self.samples_ms)
        if count >= options.max_calls:
            return True
        if count < options.min_calls:
            return False
        measured_s = sum(self.samples_ms) / 1000
        return (median_rse(self.samples_ms) < options.target_rse
                or measured_s >= options.max_measure_s or self.wall_s >= options.max_wall_s)

    def stats(self) -> TimingStats:
        rse = median_rse(self.samples_ms)
        return TimingStats(median=median(self.samples_ms), iqr=iqr(self.samples_ms),
                           n=len(self.samples_ms), rse=rse if math.isfinite(rse) else None)


def _request_times(session: Session, side: Side, config: ShapeConfig, n_calls: int,
                   timeout_s: float, rng: random.Random | None = None) -> list[float]:
    spot, spot_path = _spot_fields(session, side, config, n_calls, rng)
    request = wire.Time(config=config.name, mode=side.mode, n_calls=n_calls,
                        spot=sorted(spot), spot_path=spot_path)
    try:
        started = time.monotonic()
        reply = side.worker.request(request, timeout_s)
        outer_s = time.monotonic() - started
    except (WorkerFailed, JobDied, ForgedReply) as error:
        if side.name == "candidate":
            raise candidate_failure(error, f"timing[{config.name}]") from error
        raise reference_failure(error, session.task.path) from error
    times = reply.times_ms
    if len(times) != n_calls or any(not math.isfinite(t) or t < 0 for t in times):
        raise Outcome(Status.REJECTED, f"integrity:malformed_timings on {config.name}")
    if side.name == "candidate":
        extra = side.worker.new_processes()
        if extra:
            # Another process in the candidate's job could run while the baselines are
            # timed, or finish this batch's work after its clock stopped.
            raise Outcome(Status.REJECTED, f"integrity:extra_processes on {config.name}: "
                          f"{len(extra)} process(es) appeared in the candidate's job")
        if sum(times) / 1000 > outer_s + OUTER_SLACK_S:
            raise Outcome(Status.REJECTED, f"integrity:timer_inconsistent on {config.name}: "
                          f"{sum(times):.1f} ms measured inside, {outer_s * 1000:.1f} ms outside")
        judge_timing_reply(session, config, reply, n_calls, spot_path)
    # A spot-checked call ran with the compute recorder on: its time is not a sample.
    return [t for index, t in enumerate(times) if index not in spot] or times


def _spot_fields(session: Session, side: Side, config: ShapeConfig, n_calls: int,
                 rng: random.Random | None) -> tuple[set[int], str | None]:
    """Pick one random call of this batch to spot-check (candidate only): always in the
    first measured batch of a configuration and in the final extra batch, and in random
    batches between them."""
    if side.name != "candidate" or rng is None or side.spots_left <= 0:
        return set(), None
    if side.spots_left < SPOT_CHECKED_BATCHES and rng.random() < 0.3:
        return set(), None
    side.spots_left -= 1
    index = rng.randrange(n_calls)
    path = session.path("candidate-out", f"spot-{config.name}-{side.spots_left}.pt")
    return {index}, path


def _warm_up(session: Session, side: Side, config: ShapeConfig) -> None:
    options = session.options.timing
    # The compile baseline compiles during its first call: give it the build budget.
    timeout = session.options.build_timeout_s if side.mode == "compile" else (
        session.options.call_timeout_s)
    times = _request_times(session, side, config, max(1, options.warmup_calls), timeout)
    per_call_s = max(min(times) / 1000, 1e-6)
    side.batch = max(1, min(50, int(options.batch_target_s / per_call_s)))


def time_config(session: Session, sides: list[Side], config: ShapeConfig) -> None:
    """Measure every side on ``config`` until each is precise enough or out of budget."""
    options = session.options.timing
    rng = random.Random(f"{session.hidden_seed}:{config.name}")
    for side in sides:
        side.samples_ms, side.wall_s = [], 0.0
        side.spots_left = SPOT_CHECKED_BATCHES if side.name == "candidate" else 0
        _warm_up(session, side, config)
    while not all(side.done(options) for side in sides):
        order = [side for side in sides if not side.done(options)]
        rng.shuffle(order)
        for side in order:
            started = time.monotonic()
            side.samples_ms += _request_times(session, side, config, side.batch,
                                              session.options.call_timeout_s, rng)
            side.wall_s += time.monotonic() - started
    for side in sides:
        if side.name == "candidate":
            _final_spot_check(session, side, config, rng)


def _final_spot_check(session: Session, side: Side, config: ShapeConfig,
                      rng: random.Random) -> None:
    """One more batch, like the others, with a spot-checked call; its times are dropped.
    The candidate cannot tell it from a measured batch, so a candidate that goes wrong
    after some number of calls is caught here whatever that number was."""
    side.spots_left = SPOT_CHECKED_BATCHES  # forces a spot check (see _spot_fields)
    _request_times(session, side, config, side.batch, session.options.call_timeout_s, rng)
