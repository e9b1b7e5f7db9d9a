"""``verify_bundle``: re-run every candidate of a bundle here and check its claims.

Claims, per attempt (see docs/design/leaderboard.md, "Verifying a bundle"):

- the bundle's content hash matches its content (else nothing else is checked);
- the re-run's status equals the claimed status;
- when both are ``correct`` and the re-run's hardware fingerprint equals the one in the
  claimed verdict: the re-measured speedup is at least ``claimed * (1 - tolerance)``
  (an under-claim is not a false claim); on other hardware the speedup is not re-measured;
- the bundle's score reports follow from its verdicts (re-scored with ``scoring.py``).

A claim that could not be checked (the task is unknown here, the re-run ended ``error`` or
``not_run``) does not hold either: a run is verified only when everything was checked.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from kerneltrials.leaderboard._bundle import Bundle, BundleAttempt
from kerneltrials.results import hardware_key
from kerneltrials.scoring import EXCLUDED, ScoredAttempt, score_attempts

DEFAULT_TOLERANCE = 0.25
DIFFERENT_HARDWARE = "speedup not re-measured: different hardware"

#: (task id, source, backend, hidden seed) -> verdict JSON; the default runs kerneltrials.check
Checker = Callable[[str, str, str, int | None], dict[str, Any]]


@dataclass(frozen=True)
class ClaimOutcome:
    """One attempt's claims and what the re-run found (``None``: not checked)."""

    task_id: str
    round: int
    sample: int
    status_claimed: str
    status_measured: str | None
    status_holds: bool | None
    speedup_claimed: float | None = None
    speedup_measured: float | None = None
    speedup_holds: bool | None = None
    speedup_compile_claimed: float | None = None
    speedup_compile_measured: float | None = None
    speedup_compile_holds: bool | None = None
    notes: tuple[str, ...] = ()
    blocking: bool = False  # does this attempt keep the bundle from holding?


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

    @property
    def holds(self) -> bool:
        """Every claim was checked and held."""
        return (self.hash_ok and self.scores_hold is not False
                and not any(a.blocking for a in self.attempts))  # fmt: skip

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
        return {
            "run": self.run_name, "bundle_sha256": self.bundle_sha256, "holds": self.holds,
            "hash_ok": self.hash_ok, "tolerance": self.tolerance, "tasks": self.tasks(),
            "attempts": [asdict(a) for a in self.attempts], "scores_hold": self.scores_hold,
            "score_notes": list(self.score_notes), "hardware": self.hardware,
        }  # fmt: skip


def default_checker(quick: bool = False) -> Checker:
    """A checker that runs ``kerneltrials.check`` (quick: short timing, no torch.compile)."""
    from kerneltrials.verifier import QUICK_TIMING, CheckOptions, check

    options = CheckOptions(timing=QUICK_TIMING, compile_baseline=False) if quick else CheckOptions()

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
) -> VerificationReport:
    """Re-run every candidate of ``bundle`` and compare with its claims.

    Args:
        tolerance: relative slack on a claimed speedup (0.25: 25% slower still holds).
        checker: how to re-run one candidate (default: ``kerneltrials.check``, full timing).
        progress: called with a line per attempt as it starts.

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
    outcomes = []
    hardware: dict[str, Any] = {}
    for attempt in bundle.attempts:
        if progress:
            progress(f"{attempt.task_id} round {attempt.round} sample {attempt.sample}")
        outcome, measured_on = _verify_attempt(attempt, bundle.run.backend, tolerance, run_check)
        outcomes.append(outcome)
        hardware = measured_on or hardware
    scores_hold, notes = check_scores(bundle)
    return VerificationReport(bundle.run.name, computed, True, tolerance, tuple(outcomes),
                              scores_hold, tuple(notes), hardware)  # fmt: skip


def _verify_attempt(
    attempt: BundleAttempt, backend: str, tolerance: float, run_check: Checker
) -> tuple[ClaimOutcome, dict[str, Any]]:
    base: dict[str, Any] = dict(task_id=attempt.task_id, round=attempt.round, sample=attempt.sample,
                status_claimed=attempt.status, speedup_claimed=attempt.speedup,
                speedup_compile_claimed=attempt.speedup_compile)  # fmt: skip
    if attempt.status in EXCLUDED:
        note = f"claimed {attempt.status}: not a claim about the candidate, not re-run"
        return ClaimOutcome(**base, status_measured=None, status_holds=None, notes=(note,)), {}
    if attempt.source is None:
        claims_correct = attempt.status == "correct"
        note = (
            "claims correct without a source" if claims_correct else "no source: nothing to re-run"
        )
        return ClaimOutcome(**base, status_measured=None, status_holds=False if claims_correct
                            else None, notes=(note,), blocking=claims_correct), {}  # fmt: skip
    try:
        measured = run_check(attempt.task_id, attempt.source, backend, attempt.verdict.hidden_seed)
    except Exception as error:  # an unknown task or a broken machine: not checked
        note = f"not checked: {type(error).__name__}: {error}"
        return ClaimOutcome(**base, status_measured=None, status_holds=None, notes=(note,),
                            blocking=True), {}  # fmt: skip
    return _compare(attempt, measured, base, tolerance), measured.get("hardware", {})


def _compare(attempt: BundleAttempt, measured: dict[str, Any], base: dict[str, Any],
             tolerance: float) -> ClaimOutcome:  # fmt: skip
    status = str(measured["status"])
    notes: list[str] = []
    if status in EXCLUDED:
        reasons = "; ".join(measured.get("reasons", [])) or "no reason given"
        notes.append(f"not checked: the re-run ended {status} ({reasons})")
        return ClaimOutcome(**base, status_measured=status, status_holds=None,
                            notes=tuple(notes), blocking=True)  # fmt: skip
    status_holds = status == attempt.status
    if not status_holds:
        notes.append(f"status: claimed {attempt.status}, re-run {status}")
    speedups: dict[str, Any] = {}
    if status_holds and status == "correct":
        same_machine = hardware_key(attempt.verdict.hardware) == hardware_key(
            measured.get("hardware", {})
        )
        if not same_machine:
            notes.append(DIFFERENT_HARDWARE)
        for name in ("speedup", "speedup_compile"):
            claimed, again = getattr(attempt, name), measured.get(name)
            holds = _speedup_holds(claimed, again, tolerance) if same_machine else None
            if holds is False:
                notes.append(f"{name}: claimed {claimed:.3f}x, re-measured {again:.3f}x "
                             f"(tolerance {tolerance:.0%})")  # fmt: skip
            speedups[f"{name}_measured"] = again if same_machine else None
            speedups[f"{name}_holds"] = holds
    blocking = not status_holds or False in (
        speedups.get("speedup_holds"),
        speedups.get("speedup_compile_holds"),
    )
    return ClaimOutcome(**base, status_measured=status, status_holds=status_holds, **speedups,
                        notes=tuple(notes), blocking=blocking)  # fmt: skip


def _speedup_holds(claimed: float | None, measured: float | None, tolerance: float) -> bool | None:
    """None when there is nothing to compare (no claim, or no re-measurement)."""
    if claimed is None or measured is None or not math.isfinite(claimed):
        return None if claimed is None or measured is None else False
    return measured >= claimed * (1 - tolerance)


def check_scores(bundle: Bundle) -> tuple[bool | None, list[str]]:
    """Do the bundle's score reports follow from its verdicts? (None: it has none.)"""
    if not bundle.scores:
        return None, []
    attempts = [ScoredAttempt(task_id=a.task_id, status=a.status, speedup=a.speedup,
                              speedup_compile=a.speedup_compile, sample=a.sample, round=a.round)
                for a in bundle.attempts]  # fmt: skip
    notes = []
    for baseline, claimed in bundle.scores.items():
        p_values = [(key, float(key)) for key in claimed.get("fast_p", {})]
        report = score_attempts(attempts, bundle.run.task_ids, run=bundle.run.name,
                                p_values=p_values, baseline=baseline).to_json()  # fmt: skip
        for key in ("fast_p", "correct_rate", "n_tasks"):
            if not _close(claimed.get(key), report[key]):
                notes.append(f"scores[{baseline}].{key}: claimed {claimed.get(key)}, "
                             f"the verdicts give {report[key]}")  # fmt: skip
        claimed_geomean = (claimed.get("geomean_speedup") or {}).get("value")
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
