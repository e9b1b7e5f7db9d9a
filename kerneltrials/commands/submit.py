"""``kerneltrials submit`` (write a run's bundle) and ``kerneltrials verify`` (re-run one).

Thin layers over :mod:`kerneltrials.leaderboard` (``create_bundle``, ``verify_bundle``).
``verify`` exits 1 when any claim does not hold, 2 on bad input.
"""

from __future__ import annotations

import sys
from typing import Any

import click
from rich.table import Table

from kerneltrials.commands._common import (
    fail,
    json_option,
    print_json,
    stderr_console,
    stdout_console,
)
from kerneltrials.commands.runs import db_option, open_existing_store, store_errors_exit_2
from kerneltrials.results import open_store


@click.command()
@click.argument("run")
@db_option
@click.option(
    "--out",
    "out_file",
    type=click.Path(dir_okay=False),
    required=True,
    help="The bundle file to write (gzip-compressed when it ends in .gz).",
)
@json_option
@store_errors_exit_2
def submit(run: str, db: str | None, out_file: str, as_json: bool) -> None:
    """Write RUN's submission bundle: metadata, every candidate, verdicts, environment.

    A baseline without a stored score is scored first and saved in the store.
    """
    from kerneltrials.leaderboard import create_bundle, save_bundle

    with open_existing_store(db) as store:
        bundle = create_bundle(store, run)
    path = save_bundle(bundle, out_file)
    summary = {"bundle": str(path), "run": bundle.run.name, "attempts": len(bundle.attempts),
               "content_sha256": bundle.content_sha256, "bundle_version": bundle.bundle_version}  # fmt: skip
    if as_json:
        print_json(summary)
    else:
        stdout_console.print(f"wrote {path}: run {bundle.run.name}, {len(bundle.attempts)} "
                             f"attempts, sha256 {bundle.content_sha256}", highlight=False)  # fmt: skip


@click.command()
@click.argument("bundle_file", type=click.Path(dir_okay=False, exists=True))
@db_option
@click.option(
    "--tolerance",
    type=float,
    default=0.25,
    show_default=True,
    help="A re-measured speedup holds if it is at least claimed x (1 - tolerance).",
)
@click.option(
    "--quick", is_flag=True, help="Short timing and no torch.compile baseline (smoke tests)."
)
@json_option
def verify(bundle_file: str, db: str | None, tolerance: float, quick: bool, as_json: bool) -> None:
    """Re-run every candidate of BUNDLE_FILE here and check each claim (exit 1 if one fails).

    With --db the verification is recorded there; `leaderboard build` marks a run verified
    only from such records.
    """
    from kerneltrials.leaderboard import BundleError, default_checker, load_bundle, verify_bundle

    try:
        bundle = load_bundle(bundle_file)
        report = verify_bundle(bundle, tolerance=tolerance, checker=default_checker(quick),
                               progress=lambda line: stderr_console.print(f"re-running {line}",
                                                                          highlight=False))  # fmt: skip
    except (BundleError, ValueError) as error:
        fail(str(error))
    if db is not None:
        with open_store(db) as store:
            store.record_verification(report.run_name, report.bundle_sha256, holds=report.holds,
                                      outcome=_outcome(report), hardware=report.hardware)  # fmt: skip
    if as_json:
        print_json(report.to_json())
    else:
        _print_report(report)
    sys.exit(0 if report.holds else 1)


def _outcome(report: Any) -> dict[str, Any]:
    data: dict[str, Any] = report.to_json()
    data["speedups_remeasured"] = not any(
        "different hardware" in note for a in report.attempts for note in a.notes
    )
    return data


def _print_report(report: Any) -> None:
    table = Table(title=f"verify {report.run_name}")
    table.add_column("task")
    table.add_column("attempts", justify="right")
    table.add_column("holds")
    table.add_column("notes")
    for task, entry in report.tasks().items():
        table.add_row(task, str(entry["attempts"]), "yes" if entry["holds"] else "[red]NO[/]",
                      "; ".join(entry["notes"]))  # fmt: skip
    stdout_console.print(table)
    if not report.hash_ok or report.score_notes:
        for note in report.score_notes:
            stdout_console.print(
                f"[red]{note}[/]" if not report.scores_hold else note, highlight=False
            )
    verdict = "every claim holds" if report.holds else "[red]some claims do not hold[/]"
    stdout_console.print(f"{report.run_name} ({report.bundle_sha256[:16]}): {verdict}")
