"""The progress display of ``eval`` and ``import``: tasks done, verdict counts, running
fast_1 (by the final table's rules), tokens and cost, and retried model calls, on stderr."""

from __future__ import annotations

import threading
from collections import Counter
from typing import TYPE_CHECKING, Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from kerneltrials.commands._common import stderr_console
from kerneltrials.scoring import ScoredAttempt, best_outcomes, fast_p

if TYPE_CHECKING:
    from kerneltrials.verifier.verdict import Verdict


class RichReporter:
    """Tasks done, verdict counts, running fast_1, tokens and cost, on stderr."""

    def __init__(self) -> None:
        self.progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                                 MofNCompleteColumn(), TimeElapsedColumn(),
                                 TextColumn("{task.fields[stats]}"), console=stderr_console)
        self.statuses: Counter[str] = Counter()
        self.attempts: list[ScoredAttempt] = []  # this session's verdicts, as scoring reads them
        self.done_tasks: set[str] = set()
        self.done = 0
        self.bar: Any = None
        self._spend: Any = None
        self._lock = threading.Lock()
        self.retries = 0  # failed LLM calls tried again

    def on_start(self, run: str, total: int, already_done: int) -> None:
        self.progress.start()
        self.done = already_done
        self.bar = self.progress.add_task(f"eval {run}", total=total, completed=already_done,
                                          stats="")

    def on_attempt(self, task_id: str, verdict: Verdict, spend: Any) -> None:
        with self._lock:
            self.statuses[str(verdict.status)] += 1
            self.attempts.append(ScoredAttempt(
                task_id=task_id, status=str(verdict.status), speedup=verdict.speedup,
                speedup_compile=verdict.speedup_compile, suspicious=verdict.suspicious))
            self._spend = spend
            self._refresh(spend)

    def on_episode(self, task_id: str, outcome: str) -> None:
        with self._lock:
            if outcome == "done":
                self.done += 1
                self.done_tasks.add(task_id)
            self.progress.update(self.bar, completed=self.done)
            if self._spend is not None:
                self._refresh(self._spend)

    def on_provider_retry(self, message: str) -> None:
        """A failed LLM call that will be tried again, printed above the bar as it happens."""
        self.retries += 1
        self.progress.console.print(f"[yellow]model call failed[/]: {message}", highlight=False,
                                    soft_wrap=True)

    def fast_1(self) -> float | None:
        """fast_1 over the tasks finished so far, by the rules of the final table
        (best attempt per task, flagged speedups not counted, errors excluded)."""
        finished = [a for a in self.attempts if a.task_id in self.done_tasks]
        return fast_p(best_outcomes(finished, sorted(self.done_tasks)), 1.0)

    def _refresh(self, spend: Any) -> None:
        counts = " ".join(f"{status}={count}" for status, count in sorted(self.statuses.items()))
        fast_1 = self.fast_1()
        shown = "–" if fast_1 is None else f"{fast_1:.1%}"
        stats = (f"{counts}  fast_1 {shown} of {len(self.done_tasks)} done  tokens "
                 f"{spend.prompt_tokens}+{spend.completion_tokens}  ${spend.cost_usd:.4f}")
        self.progress.update(self.bar, stats=stats)

    def stop(self) -> None:
        self.progress.stop()
