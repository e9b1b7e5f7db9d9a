"""``verify_bundle``: re-run every candidate of a bundle here and check its claims.

In order (see docs/design/leaderboard.md, "Verifying a bundle"):

- the bundle's content hash matches its content (else nothing else is checked);
- every attempt with a source is re-run with ``kerneltrials.check`` on this machine, with
  a fresh hidden seed, and judged by ``_claims``: the status must match exactly, every
  claimed speedup is re-measured (a ratio against baselines timed in the same re-run,
  whatever hardware the bundle names) and holds only within the tolerance;
- the bundle's score reports follow from its verdicts (re-scored by the results layer);
- the run's *verified* scores are computed from the re-measured figures, never the claimed
  ones, and travel in the report (the leaderboard shows them and never re-scores).

A bundle is verified (``holds``) only when every attempt's claims were re-measured here and
held; ``fully_remeasured`` false means some could not be (``partially_verified``).
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from kerneltrials.leaderboard._bundle import Bundle, BundleAttempt
from kerneltrials.leaderboard._claims import (
    FAILS,
    NOT_REMEASURED,
    ClaimOutcome,
    inconsistencies,
    judge_rerun,
    judge_without_source,
    not_remeasured,
)
from kerneltrials.results import hardware_key, score_verdicts
from kerneltrials.results import remeasured_scores as stored_remeasured_scores

DEFAULT_TOLERANCE = 0.25
#: bumped when what a verification record means changes; the site trusts only this version
VERIFICATION_VERSION = 2
VERIFIED, PARTIALLY_VERIFIED, FAILED = "verified", "partially_verified", "failed"

#: (task id, source, backend, hidden seed) -> verdict JSON; the default runs kerneltrials.check
Checker = Callable[[str, str, str, int | None], dict[str, Any]]


@dataclass(frozen=True)
class VerificationReport:
    """Everything ``kerneltrials verify`` found out about one bundle."""

    run_name: str
    bundle_sha256: str  # the hash of the content as read (what a verification is keyed by)
    hash_ok: bool
    tolerance: float
    attempts: tuple[ClaimOutcome, ...] = ()
    scores_hold: bool | None = None
    score_notes: tuple[str, ...] = ()
    hardware: dict[str, Any] = field(default_factory=dict)  # the verifying machine
    hidden_seed: int | None = None  # the fresh seed of the re-runs' hidden configurations
    remeasured_scores: dict[str, dict[str, Any]] = field(default_factory=dict)  # baseline -> report

    @property
    def fully_remeasured(self) -> bool:
        """Every attempt's claims were re-measured here (none ``not_remeasured``)."""
        return self.hash_ok and not any(a.result == NOT_REMEASURED for a in self.attempts)

    @property
    def state(self) -> str:
        """``verified``, ``partially_verified`` (nothing failed, something not re-measured)
        or ``failed``."""
        if (
            not self.hash_ok
            or self.scores_hold is False
            or any(a.result == FAILS for a in self.attempts)
        ):
            return FAILED
        return VERIFIED if self.fully_remeasured else PARTIALLY_VERIFIED

    @property
    def holds(self) -> bool:
        """Every claim was re-measured here and held: the run is verified."""
        return self.state == VERIFIED

    def tasks(self) -> dict[str, dict[str, Any]]:
        """Per task: whether all its attempts' claims hold, and their notes."""
        result: dict[str, dict[str, Any]] = {}
        for attempt in self.attempts:
            entry = result.setdefault(attempt.task_id, {"holds": True, "attempts": 0, "notes": []})
            entry["attempts"] += 1
            entry["holds"] = entry["holds"] and not attempt.blocking
            entry["notes"].extend(n for n in attempt.notes if n not in entry["notes"])
        return result

    def to_json(self) -> dict[str, Any]:
        """The report as stored in a verification record (``outcome``) and printed by --json."""
        return {
            "verification_version": VERIFICATION_VERSION, "run": self.run_name,
            "bundle_sha256": self.bundle_sha256, "state": self.state, "holds": self.holds,
            "fully_remeasured": self.fully_remeasured, "speedups_remeasured": self.fully_remeasured,
            "hash_ok": self.hash_ok, "tolerance": self.tolerance, "hidden_seed": self.hidden_seed,
            "tasks": self.tasks(), "attempts": [asdict(a) for a in self.attempts],
            "scores_hold": self.scores_hold, "score_notes": list(self.score_notes),
            "remeasured_scores": self.remeasured_scores, "hardware": self.hardware,
        }  # fmt: skip


def default_checker(quick: bool = False) -> Checker:
    """A checker that runs ``kerneltrials.check`` (quick: short timing, no torch.compile,
    so a claimed torch.compile speedup is not re-measured). Every re-run times its own
    baselines: given the bundle's seed on the machine that made it, a shared one could be
    the very measurement under scrutiny."""
    from kerneltrials.verifier import QUICK_TIMING, CheckOptions, check

    options = (CheckOptions(timing=QUICK_TIMING, compile_baseline=False, reuse_baselines=False)
               if quick else CheckOptions(reuse_baselines=False))

    def run_check(
        task_id: str, source: str, backend: str, hidden_seed: int | None
    ) -> dict[str, Any]:
        verdict = check(task_id, source, backend=backend, hidden_seed=hidden_seed,
                        options=options)  # fmt: skip
        return verdict.to_dict()

    return run_check


def verify_bundle(
    bundle: Bundle,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    checker: Checker | None = None,
    progress: Callable[[str], None] | None = None,
    hidden_seed: int | None = None,
) -> VerificationReport:
    """Re-run every candidate of ``bundle`` here and compare with its claims.

    Args:
        tolerance: how far a claimed speedup may exceed its re-measurement: it holds up to
            ``1 / (1 - tolerance)`` times the re-measured ratio (0.25: 1.33x).
        checker: how to re-run one candidate (default: ``kerneltrials.check``, full timing).
        progress: called with a line per attempt as it starts.
        hidden_seed: the re-runs' hidden-configuration seed (default: a fresh secret one,
            so a candidate tuned to the shapes of the bundle's published seed is caught).

    Raises:
        ValueError: ``tolerance`` is not in [0, 1).
    """
    if not 0 <= tolerance < 1:
        raise ValueError(f"--tolerance must be in [0, 1), not {tolerance}")
    computed = bundle.computed_sha256()
    if computed != bundle.content_sha256:
        return VerificationReport(bundle.run.name, computed, hash_ok=False, tolerance=tolerance,
                                  score_notes=("content hash mismatch: the bundle was edited "
                                               "after it was written",))  # fmt: skip
    run_check = checker or default_checker()
    seed = hidden_seed if hidden_seed is not None else secrets.randbits(31)
    outcomes = []
    hardware: dict[str, Any] = {}
    for attempt in bundle.attempts:
        if progress:
            progress(f"{attempt.task_id} round {attempt.round} sample {attempt.sample}")
        outcome, measured_on = _verify_attempt(attempt, bundle.run.backend, tolerance,
                                               lambda a: run_check(a.task_id, a.source or "",
                                                                   bundle.run.backend, seed))  # fmt: skip
        outcomes.append(outcome)
        hardware = measured_on or hardware
    scores_hold, notes = check_scores(bundle)
    return VerificationReport(bundle.run.name, computed, True, tolerance, tuple(outcomes),
                              scores_hold, tuple(notes), hardware, seed,
                              remeasured_scores(bundle, outcomes))  # fmt: skip


def _verify_attempt(
    attempt: BundleAttempt,
    backend: str,
    tolerance: float,
    rerun: Callable[[BundleAttempt], dict[str, Any]],
) -> tuple[ClaimOutcome, dict[str, Any]]:
    problems = inconsistencies(attempt, backend)
    if attempt.source is None:
        return judge_without_source(attempt, problems), {}
    try:
        measured = rerun(attempt)
    except Exception as error:  # an unknown task or a broken machine: not re-measured
        return not_remeasured(attempt, problems, f"not re-measured: {type(error).__name__}: "
                                                 f"{error}"), {}  # fmt: skip
    outcome = judge_rerun(attempt, measured, tolerance, problems)
    here = measured.get("hardware") or {}
    if here and hardware_key(attempt.verdict.hardware) != hardware_key(here):
        # informational only: the speedups above were re-measured all the same
        note = "hardware differs from the claimed one: the figures above were measured here"
        outcome = ClaimOutcome(**{**asdict(outcome), "notes": (*outcome.notes, note)})
    return outcome, here


def remeasured_scores(
    bundle: Bundle, outcomes: list[ClaimOutcome] | tuple[ClaimOutcome, ...]
) -> dict[str, dict[str, Any]]:
    """Score reports per baseline from the RE-MEASURED statuses and speedups (the standard
    reports, as the store keeps them with a recorded verification; the site shows those)."""
    outcome = {"attempts": [asdict(o) for o in outcomes]}
    return stored_remeasured_scores(outcome, bundle.run.task_ids, bundle.run.name)


def check_scores(bundle: Bundle) -> tuple[bool | None, list[str]]:
    """Do the bundle's score reports follow from its verdicts? (None: it has none.)"""
    if not bundle.scores:
        return None, []
    verdicts = [{"task_id": a.task_id, "status": a.status, "speedup": a.speedup,
                 "speedup_compile": a.speedup_compile, "sample": a.sample, "round": a.round}
                for a in bundle.attempts]  # fmt: skip
    notes = []
    for baseline, claimed_report in bundle.scores.items():
        p_values = [(key, float(key)) for key in claimed_report.get("fast_p", {})]
        report = score_verdicts(verdicts, bundle.run.task_ids, run=bundle.run.name,
                                p_values=p_values, baseline=baseline)  # fmt: skip
        for key in ("fast_p", "correct_rate", "n_tasks"):
            if not _close(claimed_report.get(key), report[key]):
                notes.append(f"scores[{baseline}].{key}: claimed {claimed_report.get(key)}, "
                             f"the verdicts give {report[key]}")  # fmt: skip
        claimed_geomean = (claimed_report.get("geomean_speedup") or {}).get("value")
        if not _close(claimed_geomean, report["geomean_speedup"]["value"]):
            notes.append(
                f"scores[{baseline}].geomean_speedup: claimed {claimed_geomean}, "
                f"the verdicts give {report['geomean_speedup']['value']}"
            )
    return not notes, notes


def _close(left: Any, right: Any) -> bool:
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_close(left[k], right[k]) for k in left)
    if isinstance(left, int | float) and isinstance(right, int | float):
        return math.isclose(left, right, rel_tol=1e-9, abs_tol=1e-12)
    return bool(left == right)
