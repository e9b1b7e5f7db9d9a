"""Static-only screening: verdicts from the static checks alone, without torch.

``kerneltrials check --static-only`` screens thousands of stored kernels: this path
imports neither torch nor the build machinery, so each candidate costs milliseconds
after start-up. A clean candidate is ``not_run`` (nothing was run), never ``correct``.
"""

from __future__ import annotations

import time

from kerneltrials._version import __version__
from kerneltrials.tasks import TaskSpec
from kerneltrials.verifier.static._checks import run_static_checks
from kerneltrials.verifier.verdict import Status, Verdict

STATIC_PASSED = "static:passed (static-only check: nothing was run)"


def static_verdict(task: TaskSpec, source: str, backend: str = "cpu",
                   policy: str | None = None) -> Verdict:
    """The verdict of the static checks alone on one candidate's source.

    Args:
        task: the loaded task (its level decides the default policy).
        source: the candidate module's text.
        backend: ``cpu`` or ``cuda``.
        policy: ``strict``/``mixed``; ``None`` follows the task.
    """
    started = time.perf_counter()
    resolved = policy or task.default_policy()
    report = run_static_checks(source, backend, resolved)
    verdict = Verdict(task=task.id, backend=backend, policy=resolved,  # type: ignore[arg-type]
                      status=report.status if report.status is not None else Status.NOT_RUN,
                      harness_version=__version__)
    verdict.reasons = report.reasons + report.notes
    if report.passed:
        verdict.reasons.append(STATIC_PASSED)
    verdict.durations_s["static"] = time.perf_counter() - started
    return verdict
