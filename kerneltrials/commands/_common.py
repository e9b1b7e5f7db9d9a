"""Options and output helpers shared by subcommands. Only the CLI layer prints."""

from __future__ import annotations

import json
import os
import sys
from typing import Any, NoReturn

import click
from rich.console import Console

from kerneltrials.backends import BACKENDS

#: Width used when output goes to a file or pipe: rich would otherwise assume 80 columns
#: and cut table cells (``openai-c…``) that a user piping to a file wants whole.
PIPE_WIDTH = 240


def make_console(*, stderr: bool = False) -> Console:
    """A console that is as wide as the terminal, or PIPE_WIDTH when not writing to one."""
    stream = sys.stderr if stderr else sys.stdout
    width = None if stream.isatty() or "COLUMNS" in os.environ else PIPE_WIDTH
    return Console(stderr=stderr, width=width)


#: Human output goes to stdout; logs and progress to stderr (so --json stays clean).
stdout_console = make_console()
stderr_console = make_console(stderr=True)

json_option = click.option("--json", "as_json", is_flag=True,
                           help="Print machine-readable JSON on stdout and nothing else.")
backend_option = click.option("--backend", type=click.Choice(BACKENDS.names()), default="cpu",
                              show_default=True, help="Where candidates build and run.")
profile_option = click.option("--profile", type=click.Choice(["cpu", "gpu"]), default=None,
                              help="Shape profile of the task configurations [default: follows --backend].")
#: CheckOptions.inputs (verifier/_options.INPUT_MODES), spelled here so that every command's
#: import stays clear of the verifier and sandbox packages; a test keeps the two equal.
inputs_option = click.option(
    "--inputs", type=click.Choice(["file", "signed"]), default="file", show_default=True,
    help="file: the inputs the task's get_inputs draws. signed: also draw a random sign for "
         "each element of every floating input drawn all >= 0 (KernelBench's torch.rand), so "
         "a kernel wrong on negative values is caught; for tasks defined on them.")


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a one-line error to stderr and exit (2: bad input)."""
    stderr_console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    sys.exit(code)
