"""Timing, driven by the parent: candidate and baselines interleaved in shuffled order.

Each worker times its own calls; the parent times every batch's window from outside (the
candidate's job is frozen outside its windows, see ``_jobs.WorkerJob``). The in-process
times are the samples, bounded from both sides by the parent's windows: a batch whose
in-process total exceeds its window cannot be honest (``timer_inconsistent``); and when
the candidate's windows hold more untimed time per call than the eager baseline's (the
same loop, timed in the same rounds by the trusted reference worker) beyond an allowance
(medians over the batches), its times are lifted to what the windows show
(``timing:lifted``), or rejected when they claim less than a quarter of it
(``timer_understated``). After each candidate batch the parent also reads drawn outputs
out of the frozen worker (``_output_reads``). See docs/design/timing.md.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from kerneltrials.scoring import DEFAULT_P_VALUES, parse_p_values
from kerneltrials.tasks import ShapeConfig
from kerneltrials.verifier import protocol as wire
from kerneltrials.verifier._options import TimingOptions
from kerneltrials.verifier.harness._baselines import (
    BaselineStore,
    StoredBaseline,
    baseline_key,
    default_store,
)
from kerneltrials.verifier.harness._failures import candidate_failure, reference_failure
from kerneltrials.verifier.harness._hardware import hardware_fingerprint
from kerneltrials.verifier.harness._jobs import ForgedReply, JobDied, WorkerFailed, WorkerJob
from kerneltrials.verifier.harness._judge import judge_timing_reply
from kerneltrials.verifier.harness._output_reads import (
    OutputReads,
    UnreadableOutput,
    check_probability,
    keeps_outputs,
    wrong_read_calls,
)
from kerneltrials.verifier.harness._seeds import timing_pool_size
from kerneltrials.verifier.harness._session import Outcome, Session, load_trusted
from kerneltrials.verifier.harness._stats import decided, iqr, median, median_rse, speedup_interval
from kerneltrials.verifier.verdict import Status, TimingStats
from kerneltrials.verifier.worker._samples import sampled_output

#: Slack for the outside-versus-inside cross-check: pipe and scheduling latency.
OUTER_SLACK_S = 0.005
#: Timed candidate batches whose output at one random call is compared with the reference.
SPOT_CHECKED_BATCHES = 2
#: How much more untimed time per call the candidate's windows may hold than the eager
#: baseline's: this share of its own in-process time plus this share of the loop's (the
#: flush and the input copy are memory-bound and as noisy as the machine: 2-core VM,
#: batches of one side 3-9 ms per call of loop), plus the per-batch slack.
UNDERSTATED_SHARE = 0.25
LOOP_NOISE_SHARE = 1.0
#: In-process times that claim less than this share of what the windows show are no
#: noise: ``integrity:timer_understated``. Between it and the allowance they are lifted.
UNDERSTATED_REJECT = 0.25
#: A rejection is decided on at least this many measured batches of the candidate and of
#: the eager baseline: when fewer show it (a quick sweep times one or two), more rounds are
#: timed first, since one batch stalled by a loaded machine can look the same.
CONFIRM_BATCHES = 5
#: Every call's output of a batch is kept until the parent has read the ones it draws: a
#: batch is made no larger than this much output.
KEEP_BYTES = 512 * 1024**2
#: The speedups fast_p is reported at (0 is decided by any speedup): an early stop needs
#: each baseline's interval clear of all of them.
DECISION_THRESHOLDS = tuple(p for _, p in parse_p_values(DEFAULT_P_VALUES) if p > 0)
#: An early stop also needs this many measured batches of every side: the window checks
#: (timer_understated) read medians over batches.
DECIDE_MIN_BATCHES = 3
#: Batches of eager a check that reuses the run's baseline still times (or fewer, when its
#: own rule ends it sooner): the window checks read the timing loop's cost from them, and
#: a rejection needs this many (CONFIRM_BATCHES) anyway.
RECHECK_BATCHES = CONFIRM_BATCHES
#: Each timed call's offset into the factor bank: the operating system's randomness, which
#: nothing in the candidate's job can predict.
_OFFSET_DRAW = random.SystemRandom()


@dataclass
class Side:
    name: str  # "candidate", "eager", "compile"
    worker: WorkerJob
    mode: str
    samples_ms: list[float] = field(default_factory=list)
    wall_s: float = 0.0
    batch: int = 1
    spots_left: int = 0  # spot checks still to do on this configuration (candidate only)
    # Per measured batch (no spot check), per call, for timer_understated: its window
    # (timed by the parent) less the in-process times; those times; the per-batch slack.
    untimed_per_call: list[float] = field(default_factory=list)
    inside_per_call: list[float] = field(default_factory=list)
    slack_per_call: list[float] = field(default_factory=list)
    reads: OutputReads | None = None  # the candidate's outputs, read from outside
    #: The worker that recomputes checked calls (the candidate's side only): the trusted
    #: reference worker.
    reference: WorkerJob | None = None
    #: A baseline side's key in the run's store of baselines (None: not shared), and the
    #: run's baseline for this configuration once one is stored (``_baselines``).
    key: str | None = None
    stored: StoredBaseline | None = None
    reused: bool = False  # ``stored`` was timed by an earlier check, not this one

    def reset(self) -> None:
        self.samples_ms, self.wall_s = [], 0.0
        self.untimed_per_call, self.inside_per_call, self.slack_per_call = [], [], []

    @property
    def scored_ms(self) -> list[float]:
        """The samples the speedup is computed from: the run's baseline once stored."""
        return list(self.stored.samples_ms) if self.stored is not None else self.samples_ms

    @property
    def timed(self) -> bool:
        """Whether this check times this side: a stored baseline is not timed again,
        except eager's few batches that calibrate the timing loop (the window checks)."""
        return self.stored is None or self.name == "eager"

    def done(self, options: TimingOptions) -> bool:
        if self.stored is not None and len(self.untimed_per_call) >= RECHECK_BATCHES:
            return True
        count = len(self.samples_ms)
        if count >= options.max_calls:
            return True
        if count < options.min_calls:
            return False
        measured_s = sum(self.samples_ms) / 1000
        return (median_rse(self.samples_ms) < options.target_rse
                or measured_s >= options.max_measure_s or self.wall_s >= options.max_wall_s)

    def untimed_ms_per_call(self, loop_ms: float = 0.0) -> float | None:
        """Window time per call that neither the worker's timer nor ``loop_ms`` (the
        timing loop's own time per call) accounts for."""
        if not self.untimed_per_call:
            return None
        return median(self.untimed_per_call) - loop_ms

    def stats(self, loop_ms: float | None = None) -> TimingStats:
        scored = self.scored_ms
        rse = median_rse(scored)
        untimed = self.untimed_ms_per_call(loop_ms) if loop_ms is not None else None
        recheck = median(self.samples_ms) if self.reused and self.samples_ms else None
        return TimingStats(median=median(scored), iqr=iqr(scored), n=len(scored),
                           rse=rse if math.isfinite(rse) else None,
                           untimed_ms=round(untimed, 4) if untimed is not None else None,
                           reused=self.reused, recheck_median=recheck)


def _request_times(session: Session, side: Side, config: ShapeConfig, n_calls: int,
                   timeout_s: float, rng: random.Random | None = None) -> list[float]:
    spot, spot_path = _spot_fields(session, side, config, n_calls, rng)
    # Drawn now, sent with the batch: no call's inputs exist before its batch starts.
    offsets = ([_OFFSET_DRAW.randrange(wire.FRESH_OFFSETS) for _ in range(n_calls)]
               if session.options.fresh_inputs else [])
    request = wire.Time(config=config.name, mode=side.mode, n_calls=n_calls,
                        spot=sorted(spot), spot_path=spot_path,
                        keep=keeps_outputs(session.options), offsets=offsets)
    try:
        reply = side.worker.request(request, timeout_s)
        outer_s = side.worker.window_s
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
        expected = _batch_expected(session, side, config, offsets, set(spot))
        judge_timing_reply(session, config, reply, n_calls, sorted(spot), spot_path, expected)
        # The parent's draw, now that the batch has run: which calls, which elements.
        reads = side.reads if _reading(side) else None
        if reads is not None:
            drawn, seed = reads.draw(n_calls), reads.rng.getrandbits(63)
            samples = _expected_samples(session, side, config, offsets, seed)
            _judge_read_outputs(session, reads, config, reply, drawn, samples, seed)
    if spot:
        # A spot-checked batch saved its outputs inside the window: no time of it is a
        # sample (its calls ran as every other, see worker/_guards.WatchedCalls).
        return []
    side.untimed_per_call.append((outer_s * 1000 - sum(times)) / n_calls)
    side.inside_per_call.append(sum(times) / n_calls)
    side.slack_per_call.append(OUTER_SLACK_S * 1000 / n_calls)
    return list(times)


def _batch_expected(session: Session, side: Side, config: ShapeConfig, offsets: list[int],
                    wanted: set[int]) -> Callable[[list[int]], list[object]]:
    """The reference's outputs for a batch's calls, asked for all ``wanted`` calls at the
    first use (one round trip to the reference worker per batch, not one per check)."""
    known: dict[int, object] = {}

    def expected(indices: list[int]) -> list[object]:
        missing = sorted((set(indices) | wanted) - known.keys())
        if missing:
            known.update(zip(missing, _expected_outputs(session, side, config, missing, offsets),
                             strict=True))
        return [known[index] for index in indices]

    return expected


def _expected_samples(session: Session, side: Side, config: ShapeConfig, offsets: list[int],
                      seed: int) -> Callable[[list[int]], list[list[dict[str, Any]]]]:
    """The reference's sampled elements (``worker._samples``) for drawn calls of a batch,
    asked when the reads need them: from the reference worker (fresh inputs), else from
    its timing pool's outputs."""

    def expected(indices: list[int]) -> list[list[dict[str, Any]]]:
        if not indices:  # a batch none of whose calls was drawn asks the reference nothing
            return []
        if not offsets:
            pool = session.reference_pool(config.name)
            return [sampled_output(pool[index % len(pool)], seed, index) for index in indices]
        samples: list[list[dict[str, Any]]] = _fresh_reference(
            session, side, config, indices, offsets, "sampled", sample_seed=seed)
        return samples

    return expected


def _fresh_reference(session: Session, side: Side, config: ShapeConfig, indices: list[int],
                     offsets: list[int], name: str, sample_seed: int | None = None) -> Any:
    """What the reference worker saves for calls ``indices`` of a batch with fresh inputs,
    each rebuilt from its pool set and offset: whole outputs, or with ``sample_seed`` the
    elements the reads sample (the file read once, then removed)."""
    if side.reference is None:
        raise RuntimeError("fresh timed inputs need the reference worker to check them")
    sets = timing_pool_size(session.options.fresh_inputs)
    request = wire.FreshReference(
        config=config.name, pool=[index % sets for index in indices],
        offsets=[offsets[index] for index in indices],
        path=session.path("private", f"{name}-{config.name}.pt"),
        calls=list(indices) if sample_seed is not None else [], sample_seed=sample_seed)
    try:
        side.reference.request(request, session.options.call_timeout_s)
    except (WorkerFailed, JobDied, ForgedReply) as error:
        raise reference_failure(error, session.task.path) from error
    saved = load_trusted(request.path)
    session.discard(request.path)
    return saved


def _expected_outputs(session: Session, side: Side, config: ShapeConfig, indices: list[int],
                      offsets: list[int]) -> list[object]:
    """The reference's outputs for calls ``indices`` of a candidate batch: recomputed by
    the reference worker from each call's pool set and offset (its timing pool's outputs
    when the inputs were plain copies)."""
    if not offsets:
        pool = session.reference_pool(config.name)
        return [pool[index % len(pool)] for index in indices]
    if not indices:
        return []
    outputs: list[object] = _fresh_reference(session, side, config, indices, offsets, "fresh")
    return outputs


def _judge_read_outputs(session: Session, reads: OutputReads, config: ShapeConfig,
                        reply: wire.Timed, drawn: list[int],
                        expected: Callable[[list[int]], list[list[dict[str, Any]]]],
                        seed: int) -> None:
    """Read the drawn calls' sampled elements out of the frozen candidate and compare them."""
    try:
        wrong = wrong_read_calls(reads, reply, drawn, expected, session.task.tolerance(), seed)
    except UnreadableOutput as error:
        raise Outcome(Status.REJECTED, f"integrity:timed_output_unreadable on {config.name}: "
                      f"{error}") from None
    session.isolation["timed_output_reads"] = reads.summary()
    if wrong:
        raise Outcome(Status.REJECTED, f"integrity:timed_output_mismatch on {config.name}: "
                      f"{len(wrong)} timed call(s) read from the frozen worker were wrong "
                      f"(calls {wrong[:5]} of a batch of {len(reply.times_ms)})")


def _output_bytes(value: object) -> int:
    return sum(leaf.numel() * leaf.element_size() for leaf in wire.leaves(value)
               if isinstance(leaf, torch.Tensor))


def _spot_fields(session: Session, side: Side, config: ShapeConfig, n_calls: int,
                 rng: random.Random | None) -> tuple[set[int], str | None]:
    """Pick one random call of this batch to spot-check (candidate only): always in the
    first measured batch of a configuration and in the final extra batch, and in random
    batches between them. None where the parent reads the timed outputs itself: any call
    of any batch may be read there, after the batch, and no batch's times are lost."""
    if side.name != "candidate" or rng is None or side.spots_left <= 0 or _reading(side):
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
    if keeps_outputs(session.options):  # the batch's outputs are all kept at once
        kept_bytes = _output_bytes(session.reference_pool(config.name)[0])
        side.batch = max(1, min(side.batch, KEEP_BYTES // max(1, kept_bytes)))
    if side.reads is not None:
        side.reads.probability = read_probability(options, per_call_s, side.batch)
    side.reset()  # the warm-up's calls are no samples


def read_probability(options: TimingOptions, per_call_s: float, batch: int) -> float:
    """Each timed call's chance to be read, for the calls a configuration may end after:
    its measured-time budget, or (the adaptive stop on) DECIDE_MIN_BATCHES batches — the
    candidate can make its times steady enough to bring that stop on, so the miss bound
    must hold for that many calls too."""
    expected = int(options.max_measure_s / per_call_s)
    if options.decided_half_width is not None:
        expected = min(expected, DECIDE_MIN_BATCHES * batch)
    return check_probability(max(options.min_calls, min(options.max_calls, expected)))


def _time_round(session: Session, sides: list[Side], config: ShapeConfig,
                rng: random.Random) -> None:
    """One batch of each side that is not done yet, in a shuffled order."""
    options = session.options.timing
    order = [side for side in sides if not side.done(options)]
    rng.shuffle(order)
    # Eager's calibration is cut to what the candidate has left to max_calls (the
    # parent's count), or to the candidate's batch where that is longer (its unread
    # batches keep their size), whichever of the two the shuffle puts first.
    candidate = next((side for side in sides if side.name == "candidate"), None)
    cap = None
    if candidate is not None and options.max_calls > len(candidate.samples_ms):
        cap = max(options.max_calls - len(candidate.samples_ms), batch_size(candidate, options))
    for side in order:
        started = time.monotonic()
        calls = batch_size(side, options, cap)
        side.samples_ms += _request_times(session, side, config, calls,
                                          session.options.call_timeout_s, rng)
        side.wall_s += time.monotonic() - started


def batch_size(side: Side, options: TimingOptions, calibration_cap: int | None = None) -> int:
    """The calls of a side's next measured batch: its batch, but no more than it has left
    to ``max_calls`` (a quick check's batch of 30 ms of ReLU is 40 calls, twice its 20).

    Eager's calibration beside a stored baseline is no sample: the window checks read its
    loop's cost per call against the candidate's batches. So it is cut to
    ``calibration_cap`` (``_time_round``: what the candidate has left to ``max_calls``, the
    parent's count, or the candidate's batch of the round where that is longer), not to
    its own samples: a quick check's calibration no longer times 50 calls of eager (each
    with its fresh input and 64 MiB flush) beside the candidate's 20. It is never shorter
    than the candidate's batch of the same round unless its own batch is, whatever the
    candidate's own times made that batch: a window's fixed cost never weighs more per
    call on eager's side than on the candidate's, which would widen what the candidate may
    leave untimed.
    The candidate's batch keeps its size where the parent does not read the timed outputs
    (there a shorter batch would tell the candidate that it is the last measured one, which
    the spot checks' extra batch after it must not be told apart from). Where the outputs
    are read every call of every batch has the same chance to be read, whatever the batch's
    size."""
    if side.stored is not None:
        return side.batch if calibration_cap is None else max(1, min(side.batch, calibration_cap))
    if side.name == "candidate" and not _reading(side):
        return side.batch
    return max(1, min(side.batch, options.max_calls - len(side.samples_ms)))


def time_config(session: Session, sides: list[Side], config: ShapeConfig,
                store: BaselineStore | None = None) -> float:
    """Measure every side on ``config`` until each is precise enough or out of budget;
    returns the calibrated loop time per call (ms) the sides' windows are read against.

    With ``CheckOptions.reuse_baselines`` a baseline the run already timed on this
    configuration is reused, not timed again (eager still times a few batches for the
    window checks); one timed here is stored for the run's later checks.
    """
    options = session.options.timing
    rng = random.Random(f"{session.hidden_seed}:{config.name}")
    _find_baselines(session, sides, config, store)
    _time_new_baselines(session, sides, config, store, rng)
    timed = [side for side in sides if side.timed]
    for side in timed:
        side.spots_left = SPOT_CHECKED_BATCHES if side.name == "candidate" else 0
        _warm_up(session, side, config)
    while not all(side.done(options) for side in timed) and not _decided(sides, options):
        _time_round(session, timed, config, rng)
    candidate = next(side for side in sides if side.name == "candidate")
    eager = next(side for side in sides if side.name == "eager")
    factor, loop_ms = _window_factor(candidate, eager)
    if factor * UNDERSTATED_REJECT > 1 and _confirm(session, [candidate, eager], config, rng):
        factor, loop_ms = _window_factor(candidate, eager)
    _final_spot_check(session, candidate, config, rng)
    if factor * UNDERSTATED_REJECT > 1:
        raise Outcome(Status.REJECTED, f"integrity:timer_understated on {config.name}: the "
                      f"candidate's timer saw {1 / factor:.0%} of the time its windows "
                      f"show beyond the timing loop ({loop_ms:.3f} ms per call, "
                      f"{len(candidate.untimed_per_call)} batches)")
    if factor > 1:  # the in-process times never lower a time
        candidate.samples_ms = [t * factor for t in candidate.samples_ms]
        session.reasons.append(f"timing:lifted on {config.name}: candidate times x{factor:.2f} "
                               "to what the parent's windows show")
    return loop_ms


def _find_baselines(session: Session, sides: list[Side], config: ShapeConfig,
                    store: BaselineStore | None) -> None:
    """Each baseline side's key and, when the run has timed it before, its baseline."""
    for side in sides:  # the previous configuration's samples go (an untimed side keeps none)
        side.reset()
        side.key, side.stored, side.reused = None, None, False
    if not session.options.reuse_baselines or session.hidden_seed is None:
        return
    store = store or default_store()
    machine = hardware_fingerprint(session.options.backend)
    for side in sides:
        if side.name == "candidate":
            continue
        side.key = baseline_key(session.task, config, side.mode, session.hidden_seed,
                                session.options, machine)
        side.stored = store.get(side.key)
        side.reused = side.stored is not None


def _time_new_baselines(session: Session, sides: list[Side], config: ShapeConfig,
                        store: BaselineStore | None, rng: random.Random) -> None:
    """Time and store the baselines the run has not timed yet, before the candidate:
    each alone, to its own stopping rule (a baseline shared by the run must be as precise
    as its budget allows, whatever the adaptive stop would decide for this candidate),
    with the candidate frozen. The candidate is then timed as in every later check of
    the run, between eager's few calibration batches: the run's first candidate gets no
    conditions of its own (before, it alone was timed among full baseline batches)."""
    fresh = [side for side in sides if side.key is not None and side.stored is None]
    if not fresh:
        return
    store = store or default_store()
    for side in fresh:
        _warm_up(session, side, config)
    while not all(side.done(session.options.timing) for side in fresh):
        _time_round(session, fresh, config, rng)
    for side in fresh:
        assert side.key is not None
        mine = StoredBaseline(samples_ms=tuple(side.samples_ms), measured_at=time.time())
        side.stored = store.put(side.key, mine)
        # Another check of the run stored it first: the run's one denominator is that.
        side.reused = side.stored is not mine
        side.reset()  # eager's calibration batches are timed again beside the candidate


def _decided(sides: list[Side], options: TimingOptions) -> bool:
    """The adaptive stop: every baseline's speedup interval decides every fast_p
    threshold, on enough calls and batches of every side this check times
    (docs/design/timing.md)."""
    if options.decided_half_width is None:
        return False
    if any(len(side.scored_ms) < options.min_calls
           or (side.timed and len(side.untimed_per_call) < DECIDE_MIN_BATCHES)
           for side in sides):
        return False
    candidate = next(side for side in sides if side.name == "candidate")
    return all(decided(speedup_interval(side.scored_ms, candidate.samples_ms),
                       DECISION_THRESHOLDS, options.decided_half_width)
               for side in sides if side is not candidate)


def _window_factor(candidate: Side, eager: Side) -> tuple[float, float]:
    """The candidate's understatement factor, and the loop time per call it is read against."""
    loop_ms = eager.untimed_ms_per_call() or 0.0
    spread = iqr(eager.untimed_per_call) if len(eager.untimed_per_call) > 1 else 0.0
    return understatement(candidate.inside_per_call, candidate.untimed_per_call,
                          candidate.slack_per_call, loop_ms, spread), loop_ms


def _confirm(session: Session, sides: list[Side], config: ShapeConfig,
             rng: random.Random) -> bool:
    """Time more rounds until every side has ``CONFIRM_BATCHES`` measured batches; false
    when each already had them (the evidence stands as it is)."""
    if all(len(side.untimed_per_call) >= CONFIRM_BATCHES for side in sides):
        return False
    for _ in range(3 * CONFIRM_BATCHES):  # spot-checked batches measure nothing
        order = [side for side in sides if len(side.untimed_per_call) < CONFIRM_BATCHES]
        if not order:
            break
        rng.shuffle(order)
        for side in order:
            side.samples_ms += _request_times(session, side, config, side.batch,
                                              session.options.call_timeout_s, rng)
    return True


def understatement(inside_ms: list[float], untimed_ms: list[float], slack_ms: list[float],
                   loop_ms: float, loop_spread_ms: float = 0.0) -> float:
    """By how much the in-process times must grow to explain the windows (1.0: they do).

    Per measured batch, per call: ``inside_ms`` the worker's times, ``untimed_ms`` the
    rest of the parent's window, ``slack_ms`` the per-batch slack; ``loop_ms``: the
    timing loop's untimed time per call, from the trusted side, and ``loop_spread_ms`` its
    spread over the batches (how noisy the machine is now). Medians over the batches, so
    one batch stalled by the machine moves nothing. Untimed time beyond the loop and
    the allowance is work the timer missed.
    """
    if not untimed_ms:
        return 1.0
    inside = median(inside_ms)
    untimed = median(untimed_ms) - loop_ms
    allowed = (UNDERSTATED_SHARE * inside + LOOP_NOISE_SHARE * loop_ms + loop_spread_ms
               + median(slack_ms))
    if untimed <= allowed:
        return 1.0
    if inside <= 0:
        return math.inf
    return (inside + untimed - allowed) / inside


def _final_spot_check(session: Session, side: Side, config: ShapeConfig,
                      rng: random.Random) -> None:
    """One more batch, like the others, with a spot-checked call; its times are dropped.
    The candidate cannot tell it from a measured batch, so a candidate that goes wrong
    after some number of calls is caught here whatever that number was."""
    if _reading(side):
        return  # every batch's outputs were open to the reads already
    side.spots_left = SPOT_CHECKED_BATCHES  # forces a spot check (see _spot_fields)
    _request_times(session, side, config, side.batch, session.options.call_timeout_s, rng)


def _reading(side: Side) -> bool:
    """Whether the parent reads this side's timed outputs (known from the warm-up on:
    a harness without the privilege finds out at its first read)."""
    return side.reads is not None and not side.reads.unavailable
