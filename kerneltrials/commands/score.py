"""``kerneltrials score RUN``: fast_p, geometric-mean speedup with its interval, pass@k.

A thin layer over :func:`kerneltrials.results.score_run` (the rules are in
:mod:`kerneltrials.scoring`). ``--json`` prints ``ScoreReport.to_json()`` only. It stores
what the leaderboard reads (``--no-save``: print only).
"""

from __future__ import annotations

import click
from rich.table import Table

from kerneltrials.commands._common import fail, json_option, print_json, stdout_console
from kerneltrials.commands.runs import db_option, open_existing_store, store_errors_exit_2
from kerneltrials.results import GROUPINGS, score_run
from kerneltrials.scoring import (
    BASELINES,
    BOOTSTRAP_SEED,
    DEFAULT_P_VALUES,
    Interval,
    ScoreReport,
    parse_p_values,
)


@click.command()
@click.argument("run")
@click.option(
    "--p",
    "p_values",
    default=DEFAULT_P_VALUES,
    show_default=True,
    help="Speedup thresholds p for fast_p, comma-separated.",
)
@click.option(
    "--baseline",
    type=click.Choice(BASELINES),
    default="eager",
    show_default=True,
    help="Speedup against PyTorch eager or torch.compile.",
)
@click.option(
    "--by",
    type=click.Choice(GROUPINGS),
    default=None,
    help="Also break the scores down by task level or tag.",
)
@click.option(
    "--seed",
    type=int,
    default=BOOTSTRAP_SEED,
    show_default=True,
    help="Seed of the bootstrap interval.",
)
@click.option(
    "--save/--no-save",
    default=True,
    show_default=True,
    help="Store the run's standard scores of this baseline (standard thresholds and seed, "
    "per level) for the leaderboard, whatever view is printed.",
)
@db_option
@json_option
@store_errors_exit_2
def score(
    run: str,
    p_values: str,
    baseline: str,
    by: str | None,
    seed: int,
    save: bool,
    db: str | None,
    as_json: bool,
) -> None:
    """Score RUN: fast_p (correct and speedup > p), geomean speedup, pass@k, cost."""
    try:
        thresholds = parse_p_values(p_values)  # before opening the store: fail fast
    except ValueError as error:
        fail(str(error))
    with open_existing_store(db) as store:
        report = score_run(
            store, run, p_values=thresholds, baseline=baseline, by=by, seed=seed, save=save
        )
    if as_json:
        print_json(report.to_json())
        return
    print_report(report)


def percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def format_interval(interval: Interval) -> str:
    if interval.value is None:
        return "- (no correct task with a speedup)"
    text = f"{interval.value:.3f}x"
    if interval.ci95 is not None:
        text += f"  95% CI [{interval.ci95[0]:.3f}, {interval.ci95[1]:.3f}]"
    return text + f"  over {interval.n} tasks"


def print_report(report: ScoreReport) -> None:
    """The human form: a fast_p table, a summary, and the per-group table with --by."""
    excluded = ", ".join(f"{status} {n}" for status, n in report.excluded.items()) or "none"
    stdout_console.print(
        f"[bold]{report.run}[/]: {report.n_tasks} tasks scored against {report.baseline} "
        f"({report.missing_tasks} without attempt, {report.excluded_tasks} excluded; "
        f"excluded verdicts: {excluded})",
        highlight=False,
    )
    table = Table(title="fast_p")
    table.add_column("p", justify="right")
    table.add_column("fast_p", justify="right")
    for p, value in report.fast_p.items():
        table.add_row(p, percent(value))
    stdout_console.print(table)
    lines = [
        ("correct", percent(report.correct_rate)),
        ("geomean speedup", format_interval(report.geomean_speedup)),
        ("tokens", f"{report.prompt_tokens} prompt, {report.completion_tokens} completion"),
        ("cost", f"${report.cost_usd:.4f}"),
    ]
    if report.pass_at_k:
        lines.append(
            ("pass@k", ", ".join(f"@{k} {percent(v)}" for k, v in report.pass_at_k.items()))
        )
    for label, text in lines:
        stdout_console.print(f"{label:>16}: {text}", highlight=False)
    if report.by is not None:
        stdout_console.print(groups_table(report))


def groups_table(report: ScoreReport) -> Table:
    """One row per level or tag: its task count, fast_p values and geomean."""
    table = Table(title=f"by {report.by}")
    table.add_column(report.by or "group")
    table.add_column("tasks", justify="right")
    for p in report.fast_p:
        table.add_column(f"fast_{p}", justify="right")
    table.add_column("geomean", justify="right")
    for name, group in report.groups.items():
        geomean = group.geomean_speedup.value
        table.add_row(
            name,
            str(group.n_tasks),
            *(percent(v) for v in group.fast_p.values()),
            "-" if geomean is None else f"{geomean:.3f}x",
        )
    return table
