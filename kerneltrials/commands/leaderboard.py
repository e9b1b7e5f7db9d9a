"""``kerneltrials leaderboard``: build the static site, or serve a built one locally.

A thin layer over :mod:`kerneltrials.leaderboard` (``build_site``, ``serve_site``).
"""

from __future__ import annotations

from pathlib import Path

import click

from kerneltrials.commands._common import (
    fail,
    json_option,
    print_json,
    stderr_console,
    stdout_console,
)
from kerneltrials.results import DB_ENV, StoreError, resolve_db_path


@click.group()
def leaderboard() -> None:
    """Build or serve the static leaderboard site."""


@leaderboard.command()
@click.option(
    "--db",
    "db_paths",
    multiple=True,
    type=click.Path(dir_okay=False),
    help=f"A results store (repeatable) [default: ${DB_ENV}, else kerneltrials.sqlite "
    "here, when no --bundles is given]. Its verification records mark runs verified.",
)
@click.option(
    "--bundles",
    "bundles_dir",
    type=click.Path(file_okay=False, exists=True),
    default=None,
    help="A directory of submission bundles (*.json, *.json.gz) to include.",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False),
    required=True,
    help="Where to write the site (index.html at its top).",
)
@click.option(
    "--exclude",
    "exclude",
    multiple=True,
    metavar="RUN",
    help="Leave this run out (repeatable); `kerneltrials runs hide RUN` marks one in the "
    "store for good.",
)
@click.option(
    "--model-info",
    "model_info_path",
    type=click.Path(dir_okay=False, exists=True),
    default=None,
    help='JSON: model string or name -> {"organisation", "release_date", "notes"}.',
)
@json_option
def build(db_paths: tuple[str, ...], bundles_dir: str | None, out_dir: str,
          exclude: tuple[str, ...], model_info_path: str | None, as_json: bool) -> None:  # fmt: skip
    """Build the static site from results stores and submission bundles."""
    from kerneltrials.leaderboard import ModelInfoError, build_site

    stores = list(db_paths) or ([] if bundles_dir else [str(resolve_db_path(None))])
    try:
        result = build_site(out_dir, stores, bundles_dir, exclude, model_info_path)
    except (StoreError, ModelInfoError) as error:
        fail(str(error))
    if as_json:
        print_json({"out_dir": str(result.out_dir), "index": str(result.index), "runs": result.runs,
                    "pages": result.pages, "skipped": list(result.skipped)})  # fmt: skip
        return
    for line in result.skipped:
        stderr_console.print(f"[yellow]skipped[/] {line}", highlight=False)
    stdout_console.print(f"built {result.pages} pages for {result.runs} runs; open "
                         f"{result.index.resolve().as_uri()}  (or: kerneltrials leaderboard serve "
                         f"{out_dir})", highlight=False, soft_wrap=True)  # fmt: skip


@leaderboard.command()
@click.argument("directory", type=click.Path(file_okay=False), default="site")
@click.option("--port", type=int, default=8000, show_default=True, help="Port on 127.0.0.1.")
def serve(directory: str, port: int) -> None:
    """Serve a built site on http://127.0.0.1:PORT for a preview (Ctrl-C stops)."""
    from kerneltrials.leaderboard import serve_site

    try:
        server = serve_site(Path(directory), port=port)
    except (FileNotFoundError, OSError) as error:
        fail(str(error))
    bound = server.server_address[1]
    stderr_console.print(f"serving {directory} on http://127.0.0.1:{bound}/ (Ctrl-C stops)",
                         highlight=False)  # fmt: skip
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
