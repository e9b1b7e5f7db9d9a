"""``kerneltrials submit`` (write a run's bundle) and ``kerneltrials verify`` (re-run one).

Thin layers over :mod:`kerneltrials.leaderboard` (``create_bundle``, ``verify_bundle``).
``verify`` exits 0 only when every claim was re-measured here and held, 1 otherwise
(a claim failed, or some could not be re-measured), 2 on bad input.
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
    help="A claimed speedup holds if it is at most 1 / (1 - tolerance) times the speedup "
    "re-measured here (0.25: 1.33x).",
)
@click.option(
    "--quick",
    is_flag=True,
    help="Short timing and no torch.compile baseline (smoke tests): a claimed torch.compile "
    "speedup is then not re-measured, so such a bundle cannot verify.",
)
@json_option
def verify(bundle_file: str, db: str | None, tolerance: float, quick: bool, as_json: bool) -> None:
    """Re-run every candidate of BUNDLE_FILE here, re-measure every claimed speedup and
    check each claim (exit 0 only when every claim was re-measured and held, else 1).

    With --db the verification is recorded there; `leaderboard build` marks a run verified
    only from such records, and then shows the re-measured figures.
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
                                      outcome=report.to_json(), hardware=report.hardware,
                                      task_ids=list(bundle.run.task_ids))  # fmt: skip
    if as_json:
        print_json(report.to_json())
    else:
        _print_report(report)
    sys.exit(0 if report.holds else 1)


def _speedups(claimed: float | None, measured: float | None) -> str:
    def text(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}x"

    return f"{text(claimed)} / {text(measured)}"


def _print_report(report: Any) -> None:
    table = Table(title=f"verify {report.run_name}")
    for column in ("task", "sample/round", "status claimed / re-run",
                   "speedup claimed / re-measured", "vs compile", "result", "why"):  # fmt: skip
        table.add_column(column)
    colours = {"holds": "green", "fails": "red", "not_remeasured": "yellow"}
    for a in report.attempts:
        table.add_row(a.task_id, f"{a.sample}/{a.round}",
                      f"{a.status_claimed} / {a.status_measured or 'not re-run'}",
                      _speedups(a.speedup_claimed, a.speedup_measured),
                      _speedups(a.speedup_compile_claimed, a.speedup_compile_measured),
                      f"[{colours.get(a.result, 'red')}]{a.result}[/]", "; ".join(a.notes))  # fmt: skip
    stdout_console.print(table)
    for note in report.score_notes:
        stdout_console.print(f"[red]{note}[/]" if not report.scores_hold else note, highlight=False)
    verdict = {
        "verified": "verified: every claim was re-measured here and held",
        "partially_verified": "[yellow]NOT verified: some claims could not be re-measured here[/]",
        "failed": "[red]NOT verified: some claims do not hold[/]",
    }[report.state]
    stdout_console.print(f"{report.run_name} ({report.bundle_sha256[:16]}): {verdict}")
