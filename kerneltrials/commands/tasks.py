"""``kerneltrials tasks``: list, show, validate, export and import tasks.

A thin layer over :mod:`kerneltrials.tasks`: every option maps to a keyword of the
function it calls. ``--json`` prints data only; a :class:`TaskError` (an unusable task
file) prints its message on stderr and exits with code 2.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import Any

import click
from rich.table import Table

from kerneltrials.commands._common import make_console
from kerneltrials.tasks import PROFILES, TaskError, list_tasks, load_task

_stdout = make_console()
_stderr = make_console(stderr=True)


def _task_errors_exit_2(command: Callable[..., Any]) -> Callable[..., Any]:
    """Turn a TaskError into a clear message on stderr and exit code 2."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except TaskError as error:
            click.echo(f"error: {error}", err=True)
            sys.exit(2)

    return wrapper


def _print_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, default=str))


def _format_count(value: int | float | None) -> str:
    if value is None:
        return "-"
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(value) >= size:
            return f"{value / size:.2f}{unit}"
    return f"{value:.3g}" if isinstance(value, float) else str(value)


@click.group()
def tasks() -> None:
    """List, show, validate, export and import tasks."""


@tasks.command("list")
@click.option("--level", type=int, default=None, help="Only tasks of this level.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON only.")
@_task_errors_exit_2
def list_command(level: int | None, as_json: bool) -> None:
    """List the built-in tasks."""
    summaries = [task.summary() for task in list_tasks(level)]
    if as_json:
        _print_json(summaries)
        return
    table = Table(title=f"{len(summaries)} tasks")
    for column in ("id", "level", "tags", "dtype", "policy"):
        table.add_column(column)
    for item in summaries:
        table.add_row(item["id"], str(item["level"]), ", ".join(item["tags"]),
                      item["dtype"], item["policy"])
    _stdout.print(table)


@tasks.command("show")
@click.argument("task")
@click.option("--profile", type=click.Choice(PROFILES), default=None,
              help="Only this profile's configurations (default: all).")
@click.option("--hidden-seed", type=int, default=None,
              help="Preview the hidden configurations this seed draws.")
@click.option("--no-cost", is_flag=True, help="Skip FLOP/byte counting.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON only.")
@_task_errors_exit_2
def show_command(task: str, profile: str | None, hidden_seed: int | None,
                 no_cost: bool, as_json: bool) -> None:
    """Show a task's metadata, configurations, FLOPs and bytes (TASK: id or path)."""
    from kerneltrials.tasks._describe import describe_task

    spec = load_task(task)
    profiles = (profile,) if profile else PROFILES
    details = describe_task(spec, profiles, hidden_seed=hidden_seed, with_cost=not no_cost)
    if as_json:
        _print_json(details)
        return
    _stdout.print(f"[bold]{details['id']}[/bold]  level {details['level']}  "
                  f"{', '.join(details['tags'])}  dtype {details['dtype']}  "
                  f"policy {details['policy']}\n{details['path']}")
    for name, configs in details["configs"].items():
        table = Table(title=f"profile {name}")
        for column in ("config", "constants", "params", "flops", "bytes", "flop/byte"):
            table.add_column(column)
        for config in configs:
            constants = " ".join(f"{k}={v}" for k, v in config["constants"].items())
            label = f"{config['name']} (derived)" if config.get("derived") else config["name"]
            table.add_row(label, constants, _format_count(config.get("params")),
                          _format_count(config.get("flops")), _format_count(config.get("bytes")),
                          _format_count(config.get("arithmetic_intensity")))
        _stdout.print(table)
    if not details["has_task_dict"]:
        _stdout.print("No TASK dict: the file's own constants are its one public configuration "
                      "on the gpu profile; on cpu, sizes scaled down by one factor until the "
                      "eager reference runs in 1-50 ms on this machine (measured once, kept "
                      "in the cache). Hidden ones are derived from those sizes (each >= 8 "
                      "scaled by a seeded 0.7-1.3, checked on the meta device; --hidden-seed "
                      "previews them).")


@tasks.command("validate")
@click.argument("task_ids", metavar="[TASK]...", nargs=-1)
@click.option("--profile", type=click.Choice(PROFILES), default="cpu", show_default=True)
@click.option("--level", type=int, default=None, help="Without TASK: only this level.")
@click.option("--strict-timing", is_flag=True, help="Runtime outside the band is an error.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON only.")
@_task_errors_exit_2
def validate_command(task_ids: tuple[str, ...], profile: str, level: int | None,
                     strict_timing: bool, as_json: bool) -> None:
    """Reject degenerate tasks (all built-in tasks when none is given).

    Exit code 1 when a task fails validation, 2 when a task file is unusable.
    """
    from kerneltrials.tasks._validate import validate_task

    specs = [load_task(t) for t in task_ids] if task_ids else list_tasks(level)
    reports = []
    for spec in specs:
        if not as_json:
            _stderr.print(f"validating {spec.id} ...")
        reports.append(validate_task(spec, profile=profile, strict_timing=strict_timing))
    if as_json:
        _print_json([report.to_dict() for report in reports])
    else:
        _print_validation_table(reports)
    sys.exit(0 if all(report.ok for report in reports) else 1)


def _print_validation_table(reports: list[Any]) -> None:
    table = Table(title="task validation")
    for column in ("task", "result", "eager ms", "problems"):
        table.add_column(column)
    for report in reports:
        result = "[green]ok[/green]" if report.ok else "[red]FAIL[/red]"
        runtimes = " ".join(f"{ms:.1f}" for ms in report.runtime_ms.values())
        problems = "\n".join(f"{p.severity}: {p.code} {p.detail}" for p in report.problems)
        table.add_row(report.task_id, result, runtimes or "-", problems or "-")
    _stdout.print(table)


def _quiet_datasets() -> None:
    """No progress bars from ``datasets``: stdout/stderr belong to this command."""
    try:
        import datasets

        datasets.disable_progress_bars()
    except ImportError:
        pass  # the import/export call reports the missing package


@tasks.command("export")
@click.argument("directory", type=click.Path(file_okay=False))
@click.option("--level", type=int, default=None, help="Only tasks of this level.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON only.")
@_task_errors_exit_2
def export_command(directory: str, level: int | None, as_json: bool) -> None:
    """Save the built-in task set as a Hugging Face dataset in DIRECTORY."""
    from kerneltrials.tasks._dataset import export_tasks

    _quiet_datasets()
    ids = export_tasks(directory, level=level)
    if as_json:
        _print_json({"directory": directory, "tasks": ids})
    else:
        _stdout.print(f"exported {len(ids)} tasks to {directory}")


@tasks.command("import")
@click.argument("directory", type=click.Path(exists=True, file_okay=False))
@click.option("--dest", type=click.Path(file_okay=False), default=None,
              help="Where to write task files (default: DIRECTORY/tasks).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON only.")
@_task_errors_exit_2
def import_command(directory: str, dest: str | None, as_json: bool) -> None:
    """Write the tasks of a saved dataset (ours or KernelBench-style) as task files."""
    from kerneltrials.tasks._dataset import import_tasks

    _quiet_datasets()
    imported = import_tasks(directory, dest=dest)
    if as_json:
        _print_json([{"id": t.id, "path": str(t.path), "source_id": t.source_id}
                     for t in imported])
        return
    table = Table(title=f"imported {len(imported)} tasks")
    table.add_column("id")
    table.add_column("path")
    for task in imported:
        table.add_row(task.id, str(task.path))
    _stdout.print(table)
