"""The ``kerneltrials`` command: one click group, one module per subcommand.

Subcommands live in ``kerneltrials/commands/<name>.py`` and are imported only when
invoked, so ``kerneltrials --help`` stays instant and optional SDKs load on demand.
"""

from __future__ import annotations

import importlib
import importlib.util
import signal
import sys
from typing import Any

import click

from kerneltrials._version import __version__

#: command name -> (module, attribute, one-line help shown by ``--help``)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "check": ("kerneltrials.commands.check", "check", "Verify one candidate kernel on one task."),
    "tasks": ("kerneltrials.commands.tasks", "tasks", "List, show, validate, export and import tasks."),
    "eval": ("kerneltrials.commands.eval", "eval_command", "Evaluate a model/agent on the task set."),
    "runs": ("kerneltrials.commands.runs", "runs", "List and show stored runs."),
    "score": ("kerneltrials.commands.score", "score", "Score a stored run (fast_p, geomean, CI)."),
    "leaderboard": ("kerneltrials.commands.leaderboard", "leaderboard", "Build or serve the static leaderboard."),
    "submit": ("kerneltrials.commands.submit", "submit", "Write a run's submission bundle."),
    "verify": ("kerneltrials.commands.submit", "verify", "Re-run a submission bundle and check its claims."),
    "import": ("kerneltrials.commands.imports", "import_group", "Judge a peer's published kernels and store them as a run."),
    "doctor": ("kerneltrials.commands.doctor", "doctor", "Show what this machine can do."),
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [name for name, (module, _, _) in COMMANDS.items() if _module_exists(module)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module_name, attribute, _ = COMMANDS[cmd_name]
        if not _module_exists(module_name):
            return None
        command: click.Command = getattr(importlib.import_module(module_name), attribute)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][2]) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def _module_exists(module_name: str) -> bool:
    return importlib.util.find_spec(module_name) is not None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kerneltrials")
def cli() -> None:
    """kerneltrials: LLM-written kernels, verified honestly and timed fairly.

    Options can also be set through the environment with the KERNELTRIALS_ prefix
    (e.g. KERNELTRIALS_DB, KERNELTRIALS_CACHE).
    """


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> Any:
    # SIGTERM's default ends the process at once: a check in flight would leave its jobs
    # frozen (and their memory held) until the next harness sweeps them. Raised instead,
    # it unwinds through the session's close, which thaws and ends every job. ``eval``
    # replaces this with its own handling (finish the run's bookkeeping, then stop).
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _exit_on_sigterm)
    return cli.main(args=argv, prog_name="kerneltrials", auto_envvar_prefix="KERNELTRIALS")


if __name__ == "__main__":
    sys.exit(main())
