"""How ``eval`` and ``import`` end: the summary's last lines and the exit code."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path
from typing import Any

from kerneltrials.commands._common import fail, print_json, stderr_console, stdout_console
from kerneltrials.commands._eval_progress import RichReporter


#: How ``eval`` exits: 0 finished, 1 stopped early (a task whose model calls all failed
#: leaves its run unfinished; the cause is the last line), 128 + the signal's number when
#: a signal interrupted it.
def exit_code(summary: Any) -> int:
    if summary.signal is not None:
        return 128 + int(summary.signal)
    return 0 if summary.status == "finished" else 1


def exit_for(summary: Any) -> None:
    code = exit_code(summary)
    if summary.signal is not None:
        # An episode abandoned after the grace period may still hold a thread (an LLM
        # call in flight): the store is consistent and the run marked, so do not wait.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    if code:
        sys.exit(code)


def resume_command(summary: Any) -> str:
    from kerneltrials.results import resolve_db_path

    command = f"kerneltrials eval --resume --run {shlex.quote(summary.run)}"
    if summary.db and Path(summary.db).resolve() != resolve_db_path().resolve():
        command += f" --db {shlex.quote(summary.db)}"
    return command


def print_summary(summary: Any) -> None:
    from kerneltrials.commands.score import print_report

    if summary.score is not None:
        print_report(summary.score)
    if summary.status == "finished":
        stdout_console.print(f"run [bold]{summary.run}[/]: finished", highlight=False)
        return
    cause = summary.stop_reason or "not every task finished"
    # One last line: what happened, why, and the command that continues the run.
    stderr_console.print(f"run [bold]{summary.run}[/]: {summary.status} ({cause}); continue "
                         f"with: [bold]{resume_command(summary)}[/]", highlight=False,
                         soft_wrap=True)


def run_and_report(config: Any, as_json: bool, extra: dict[str, Any] | None = None) -> None:
    """``run_eval(config)`` under the progress display, then its summary (``--json``: with
    ``extra`` fields) and the exit code; bad input exits 2 with its one-line message."""
    from kerneltrials.agents import ProviderUserError
    from kerneltrials.results import StoreError
    from kerneltrials.scheduler import run_eval
    from kerneltrials.tasks import TaskError

    reporter = RichReporter()
    try:
        summary = run_eval(config, reporter)
    except (TaskError, ProviderUserError, StoreError, ValueError) as error:
        reporter.stop()
        fail(str(error))
    reporter.stop()
    if as_json:
        print_json({"run": summary.run, "status": summary.status, **(extra or {}),
                    "stop_reason": summary.stop_reason, "episodes": summary.episodes,
                    "resume": resume_command(summary) if summary.status != "finished" else None,
                    "score": summary.score.to_json() if summary.score is not None else None})
    else:
        print_summary(summary)
    exit_for(summary)
