"""One attempt's claims against its re-run on the verifying machine (``kerneltrials verify``).

Every attempt ends in one of three results (docs/design/leaderboard.md, "Verifying a bundle"):

- ``holds``: every claim it makes was re-measured here and held;
- ``fails``: a claim is contradicted: the re-run's status differs, a claimed speedup is
  more than the tolerance above the re-measured one, or the bundle's own fields disagree;
- ``not_remeasured``: a claim could not be re-measured here (the re-run ended ``error``
  or ``not_run``, the task is unknown here, a ``torch.compile`` speedup is claimed but
  the re-run did not time ``torch.compile``, an excluded attempt without a source).

The claimed hardware string never decides anything: speedups are ratios of times measured
in the same re-run (candidate against baselines timed alongside it), so they are always
re-measured, on whatever machine verifies.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Any

from kerneltrials.leaderboard._bundle import BundleAttempt
from kerneltrials.verifier.verdict import EXCLUDED_STATUSES

HOLDS = "holds"
FAILS = "fails"
NOT_REMEASURED = "not_remeasured"
SPEEDUPS = ("speedup", "speedup_compile")
EXCLUDED = frozenset(status.value for status in EXCLUDED_STATUSES)


@dataclass(frozen=True)
class ClaimOutcome:
    """One attempt: what the bundle claims, what the re-run here measured, and the result."""

    task_id: str
    round: int
    sample: int
    status_claimed: str
    status_measured: str | None = None  # None: not re-run
    status_holds: bool | None = None
    speedup_claimed: float | None = None
    speedup_measured: float | None = None  # the figure the site shows once verified
    speedup_holds: bool | None = None
    speedup_compile_claimed: float | None = None
    speedup_compile_measured: float | None = None
    speedup_compile_holds: bool | None = None
    result: str = HOLDS  # HOLDS, FAILS or NOT_REMEASURED
    notes: tuple[str, ...] = ()  # why, one line per claim checked

    @property
    def blocking(self) -> bool:
        """Does this attempt keep the bundle from being verified?"""
        return self.result != HOLDS


def claimed(attempt: BundleAttempt) -> dict[str, Any]:
    """The ``ClaimOutcome`` fields that only restate the claim."""
    return dict(task_id=attempt.task_id, round=attempt.round, sample=attempt.sample,
                status_claimed=attempt.status, speedup_claimed=attempt.speedup,
                speedup_compile_claimed=attempt.speedup_compile)  # fmt: skip


def inconsistencies(attempt: BundleAttempt, backend: str) -> list[str]:
    """Where the attempt's repeated fields disagree (each one a failed claim): a forger who
    edits the figure a reader sees but not the verdict's (or the reverse) is caught here."""
    verdict = attempt.verdict
    found = []
    if str(verdict.status) != attempt.status:
        found.append(f"status {attempt.status!r} but the verdict says {verdict.status!s}")
    for name in SPEEDUPS:
        if getattr(verdict, name) != getattr(attempt, name):
            found.append(f"{name} {getattr(attempt, name)} but the verdict says "
                         f"{getattr(verdict, name)}")  # fmt: skip
    if str(verdict.backend) != backend:
        found.append(f"verdict backend {verdict.backend!s}, run backend {backend}")
    if attempt.source is not None and attempt.source_sha256 not in (None, _sha256(attempt.source)):
        found.append("source_sha256 does not match the source")
    return [f"inconsistent bundle: {line}" for line in found]


def judge_without_source(attempt: BundleAttempt, problems: list[str]) -> ClaimOutcome:
    """An attempt with no candidate source: nothing can be re-run."""
    if attempt.status == "correct":
        return ClaimOutcome(**claimed(attempt), status_holds=False, result=FAILS,
                            notes=(*problems, "claims correct without a source"))  # fmt: skip
    if attempt.status in EXCLUDED:
        # an excluded attempt leaves fast_p's denominator: that must be re-checked too
        note = (f"claims {attempt.status} without a source: its exclusion from the scores "
                "cannot be re-checked here")  # fmt: skip
        return ClaimOutcome(**claimed(attempt), result=FAILS if problems else NOT_REMEASURED,
                            notes=(*problems, note))  # fmt: skip
    note = f"no source: a {attempt.status} counted against the run, nothing to re-run"
    return ClaimOutcome(**claimed(attempt), result=FAILS if problems else HOLDS,
                        notes=(*problems, note))  # fmt: skip


def not_remeasured(attempt: BundleAttempt, problems: list[str], why: str) -> ClaimOutcome:
    """The re-run could not happen (unknown task, broken machine)."""
    return ClaimOutcome(**claimed(attempt), result=FAILS if problems else NOT_REMEASURED,
                        notes=(*problems, why))  # fmt: skip


def judge_rerun(
    attempt: BundleAttempt, measured: dict[str, Any], tolerance: float, problems: list[str]
) -> ClaimOutcome:
    """Compare the claims with the re-run's verdict (``Verdict.to_dict()``)."""
    status = str(measured.get("status"))
    figures: dict[str, Any] = {f"{name}_measured": _number(measured.get(name)) for name in SPEEDUPS}
    notes = list(problems)
    if status in EXCLUDED:
        reasons = "; ".join(measured.get("reasons", [])) or "no reason given"
        notes.append(f"not re-measured: the re-run here ended {status} ({reasons})")
        return ClaimOutcome(**claimed(attempt), status_measured=status, **figures,
                            result=FAILS if problems else NOT_REMEASURED, notes=tuple(notes))  # fmt: skip
    status_holds = status == attempt.status
    notes.append(f"status: claimed {attempt.status}, re-run {status}")
    results = [HOLDS if status_holds and not problems else FAILS]
    holds: dict[str, Any] = {}  # speedup_holds, speedup_compile_holds
    if status == "correct":
        for name in SPEEDUPS:
            verdict, note = judge_speedup(name, getattr(attempt, name),
                                          figures[f"{name}_measured"], tolerance)  # fmt: skip
            holds[f"{name}_holds"] = {HOLDS: True, FAILS: False}.get(verdict)
            results.append(verdict)
            notes.extend([note] if note else [])
    result = FAILS if FAILS in results else NOT_REMEASURED if NOT_REMEASURED in results else HOLDS
    return ClaimOutcome(**claimed(attempt), status_measured=status, status_holds=status_holds,
                        **figures, **holds, result=result, notes=tuple(notes))  # fmt: skip


def judge_speedup(
    name: str, claim: float | None, measured: float | None, tolerance: float
) -> tuple[str, str | None]:
    """One speedup claim against its re-measurement: (result, why).

    A claim holds when it is at most ``1 / (1 - tolerance)`` times the re-measured ratio
    (0.25: a claim up to 1.33x the re-measurement); an under-claim always holds.
    """
    if claim is None:
        return (
            HOLDS,
            None if measured is None else f"{name}: none claimed, re-measured {measured:.3f}x",
        )
    if not math.isfinite(claim) or claim <= 0:
        return FAILS, f"{name}: claimed {claim}, not a finite positive ratio"
    if measured is None:
        return NOT_REMEASURED, (f"{name}: claimed {claim:.3f}x, not re-measured here (the re-run "
                                "did not time this baseline)")  # fmt: skip
    limit = 1 / (1 - tolerance)
    ratio = claim / measured
    verdict = HOLDS if ratio <= limit * (1 + 1e-9) else FAILS
    return verdict, (f"{name}: claimed {claim:.3f}x, re-measured {measured:.3f}x: the claim is "
                     f"{ratio:.2f}x the re-measurement (at most {limit:.2f}x holds) - {verdict}")  # fmt: skip


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
