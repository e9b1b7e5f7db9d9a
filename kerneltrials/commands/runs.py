"""``kerneltrials runs``: list the stored runs and show one run's attempts.

A thin layer over :mod:`kerneltrials.results`. ``--json`` prints data only; a missing
store or an unknown run prints the cause on stderr and exits with code 2.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import click
from rich import box
from rich.table import Table

from kerneltrials.commands._attempt_view import attempt_json, attempt_view
from kerneltrials.commands._common import fail, json_option, print_json, stdout_console
from kerneltrials.results import (
    DB_ENV,
    AttemptRecord,
    ResultsStore,
    RunRecord,
    StoreError,
    open_store,
)

#: ``--db PATH`` for every command that reads the store (defaults resolved by open_store)
db_option = click.option(
    "--db",
    "db",
    type=click.Path(dir_okay=False),
    default=None,
    envvar=DB_ENV,
    help=f"Results store [default: ${DB_ENV}, else kerneltrials.sqlite here].",
)


def store_errors_exit_2(command: Callable[..., Any]) -> Callable[..., Any]:
    """Turn a StoreError (missing store, unknown run, newer schema) into exit code 2."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except StoreError as error:
            fail(str(error))

    return wrapper


def open_existing_store(db: str | None) -> ResultsStore:
    """The store at ``--db`` (or its default); never creates one for a read command."""
    return open_store(db, create=False)


def format_speedup(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


@click.group()
def runs() -> None:
    """List and show stored runs."""


@runs.command("list")
@db_option
@json_option
@store_errors_exit_2
def list_command(db: str | None, as_json: bool) -> None:
    """List every run in the store, newest first."""
    with open_existing_store(db) as store:
        records = store.list_runs()
        counts = store.status_counts()
    rows = [run_summary(run, counts.get(run.name, {})) for run in records]
    if as_json:
        print_json(rows)
        return
    table = Table(
        title=f"{len(rows)} runs", box=box.SIMPLE_HEAD, collapse_padding=True, pad_edge=False
    )
    for column in ("run", "model", "agent", "backend", "status", "started", "attempts", "correct"):
        table.add_column(
            column,
            justify="right" if column in ("attempts", "correct") else "left",
            no_wrap=column == "run",
        )
    for row in rows:
        table.add_row(
            row["name"],
            row["model"],
            row["agent"],
            row["backend"],
            row["status"],
            row["started_at"][:10],
            str(row["attempts"]),
            str(row["correct"]),
        )
    stdout_console.print(table)


def run_summary(run: RunRecord, counts: dict[str, int]) -> dict[str, Any]:
    """One row of ``runs list``: the run's metadata and its attempt counts by status."""
    data = run.to_dict()
    data.update(
        attempts=sum(counts.values()),
        correct=counts.get("correct", 0),
        statuses=dict(sorted(counts.items())),
        n_selected=len(run.task_ids),
    )
    return data


def attempt_summary(attempt: AttemptRecord) -> dict[str, Any]:
    """An attempt without its source and transcript (``runs show`` stays readable)."""
    return {
        "task": attempt.task_id,
        "round": attempt.round,
        "sample": attempt.sample,
        "status": attempt.status,
        "speedup": attempt.speedup,
        "speedup_compile": attempt.speedup_compile,
        "reasons": list(attempt.verdict.reasons),
        "suspicious": attempt.verdict.suspicious,
        "prompt_tokens": attempt.prompt_tokens,
        "completion_tokens": attempt.completion_tokens,
        "cost_usd": attempt.cost_usd,
        "created_at": attempt.created_at,
    }


@runs.command("show")
@click.argument("run")
@click.argument("task", required=False)
@db_option
@json_option
@store_errors_exit_2
def show_command(run: str, task: str | None, db: str | None, as_json: bool) -> None:
    """Show RUN's metadata and its attempts, one row per task, round and sample.

    With TASK (e.g. L1/relu), show each of that task's attempts in full instead: the
    model's reply, the candidate's source, every configuration's errors and timings, and
    the reasons; --json gives the full verdicts and transcripts.
    """
    with open_existing_store(db) as store:
        record = store.get_run(run)
        stored = store.attempts_for_run(record)
    if task is not None:
        show_task(record, task, stored, as_json)
        return
    attempts = [attempt_summary(a) for a in stored]
    if as_json:
        print_json({"run": record.to_dict(), "attempts": attempts})
        return
    stdout_console.print(metadata_table(record))
    stdout_console.print(attempts_table(attempts, record.task_ids))


def show_task(record: RunRecord, task: str, stored: list[AttemptRecord], as_json: bool) -> None:
    chosen = [attempt for attempt in stored if attempt.task_id == task]
    if not chosen:
        tasks = sorted({attempt.task_id for attempt in stored})
        fail(f"run {record.name!r} has no attempt at task {task!r}"
             + (f"; its attempted tasks: {', '.join(tasks)}" if tasks else " (it has no attempts)"))
    if as_json:
        print_json({"run": record.name, "attempts": [attempt_json(a) for a in chosen]})
        return
    for attempt in chosen:
        stdout_console.print(attempt_view(attempt))


def metadata_table(run: RunRecord) -> Table:
    """Key/value table of a run's provenance."""
    table = Table(title=f"run {run.name}", show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value", overflow="fold")
    for field in (
        "model",
        "agent",
        "backend",
        "profile",
        "status",
        "stop_reason",
        "started_at",
        "ended_at",
        "harness_version",
        "task_set_version",
        "git_commit",
        "hidden_seed",
        "hardware_key",
    ):
        value = getattr(run, field)
        table.add_row(field, "-" if value in (None, "") else str(value))
    table.add_row("tasks selected", str(len(run.task_ids)))
    return table


def attempts_table(attempts: list[dict[str, Any]], selected: list[str]) -> Table:
    """Per-task attempt rows; selected tasks with no attempt show as ``(no attempt)``."""
    table = Table(
        title=f"{len(attempts)} attempts",
        box=box.SIMPLE_HEAD,
        collapse_padding=True,
        pad_edge=False,
    )
    for column in ("task", "rnd/smp", "status", "speedup", "compile", "cost"):
        table.add_column(column, no_wrap=True)
    table.add_column("reason", overflow="fold", min_width=12)  # the one column that wraps
    for row in attempts:
        cost = "-" if row["cost_usd"] is None else f"${row['cost_usd']:.3f}"
        status = row["status"] + (" (flagged)" if row["suspicious"] else "")
        table.add_row(
            row["task"],
            f"{row['round']}/{row['sample']}",
            status,
            format_speedup(row["speedup"]),
            format_speedup(row["speedup_compile"]),
            cost,
            row["reasons"][0] if row["reasons"] else "",
        )
    attempted = {row["task"] for row in attempts}
    for task in selected:
        if task not in attempted:
            table.add_row(task, "", "(no attempt)", "", "", "", "")
    return table


@runs.command("hide")
@click.argument("run_names", metavar="RUN...", nargs=-1, required=True)
@click.option("--unhide", is_flag=True, help="Show the runs on the leaderboard again.")
@db_option
@json_option
@store_errors_exit_2
def hide_command(run_names: tuple[str, ...], unhide: bool, db: str | None, as_json: bool) -> None:
    """Mark RUNs as test runs: kept in the store, left off the leaderboard."""
    with open_existing_store(db) as store:
        records = [store.get_run(name) for name in run_names]  # every name checked first
        changed = [store.set_hidden(record, not unhide) for record in records]
    if as_json:
        print_json([{"run": record.name, "hidden": record.hidden} for record in changed])
        return
    verb = "shown on" if unhide else "hidden from"
    for record in changed:
        stdout_console.print(f"{record.name}: {verb} the leaderboard", highlight=False)
