"""Options and output helpers shared by subcommands. Only the CLI layer prints."""

from __future__ import annotations

import json
import sys
from typing import Any

import click
from rich.console import Console

from kerneltrials.backends import BACKENDS

#: Human output goes to stdout; logs and progress to stderr (so --json stays clean).
stdout_console = Console()
stderr_console = Console(stderr=True)

json_option = click.option("--json", "as_json", is_flag=True,
                           help="Print machine-readable JSON on stdout and nothing else.")
backend_option = click.option("--backend", type=click.Choice(BACKENDS.names()), default="cpu",
                              show_default=True, help="Where candidates build and run.")
profile_option = click.option("--profile", type=click.Choice(["cpu", "gpu"]), default=None,
                              help="Shape profile of the task configurations [default: follows --backend].")


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")


def fail(message: str, code: int = 2) -> None:
    """Print a one-line error to stderr and exit (2: bad input)."""
    stderr_console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    sys.exit(code)
