"""The eval progress bar's fast_1 follows the final table's rules (issue 22: it read ≈0.80
while the table said 66.7%)."""

from __future__ import annotations

from types import SimpleNamespace

from kerneltrials.commands._eval_progress import RichReporter
from kerneltrials.verifier import Status, Verdict

SPEND = SimpleNamespace(prompt_tokens=10, completion_tokens=5, cost_usd=0.0)


def verdict(task: str, status: Status, speedup: float | None = None,
            suspicious: bool = False) -> Verdict:
    return Verdict(task=task, backend="cpu", status=status, speedup=speedup, policy="strict",
                   suspicious=suspicious)


def test_progress_fast_1_counts_like_the_table() -> None:
    reporter = RichReporter()
    reporter.on_start("r", total=4, already_done=0)
    try:
        for task, attempts in {
            "A": [verdict("A", Status.INCORRECT), verdict("A", Status.CORRECT, 1.5)],  # best of two
            "B": [verdict("B", Status.CORRECT, 9.0, suspicious=True)],  # flagged: not fast
            "C": [verdict("C", Status.CORRECT, 0.7)],
            "D": [verdict("D", Status.ERROR)],  # excluded from the denominator
        }.items():
            for one in attempts:
                reporter.on_attempt(task, one, SPEND)
            reporter.on_episode(task, "done")
        assert reporter.fast_1() == 1 / 3
        stats = reporter.progress.tasks[0].fields["stats"]
        assert "fast_1 33.3% of 4 done" in stats, stats
    finally:
        reporter.stop()


def test_progress_fast_1_ignores_attempts_of_unfinished_tasks() -> None:
    reporter = RichReporter()
    reporter.on_start("r", total=2, already_done=0)
    try:
        reporter.on_attempt("A", verdict("A", Status.CORRECT, 2.0), SPEND)
        assert reporter.fast_1() is None  # no task finished yet: undefined, not 0 or 1
        reporter.on_episode("A", "done")
        reporter.on_attempt("B", verdict("B", Status.INCORRECT), SPEND)
        assert reporter.fast_1() == 1.0
    finally:
        reporter.stop()
