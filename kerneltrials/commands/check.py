"""``kerneltrials check TASK CANDIDATE``: verify one candidate kernel on one task."""

from __future__ import annotations

from pathlib import Path

import click
from rich.markup import escape
from rich.table import Table

from kerneltrials.commands._common import (
    backend_option,
    fail,
    json_option,
    print_json,
    profile_option,
    stderr_console,
    stdout_console,
)

_STATUS_STYLE = {"correct": "bold green", "incorrect": "bold red", "rejected": "bold magenta",
                 "compile_error": "bold red", "runtime_error": "bold red", "timeout": "bold yellow",
                 "error": "bold yellow", "not_run": "bold cyan"}


@click.command("check")
@click.argument("task")
@click.argument("candidate", type=click.Path(dir_okay=False, path_type=Path))
@backend_option
@profile_option
@click.option("--sandbox", default="process", show_default=True,
              help="Isolation backend for candidate jobs: process or docker.")
@click.option("--policy", type=click.Choice(["strict", "mixed"]), default=None,
              help="What counts as a real kernel [default: strict for level 1, else mixed].")
@click.option("--hidden-seed", type=int, default=None,
              help="Seed of the hidden shape configurations [default: a fresh random seed].")
@click.option("--compile-baseline/--no-compile-baseline", default=True, show_default=True,
              help="Also time torch.compile (slow the first time: inductor compiles C++).")
@click.option("--quick", is_flag=True, help="Short, noisy timing (smoke tests, not for scores).")
@click.option("--static-only", is_flag=True,
              help="Run the static checks alone (milliseconds per candidate), build nothing.")
@json_option
def check(task: str, candidate: Path, backend: str, profile: str | None, sandbox: str,
          policy: str | None, hidden_seed: int | None, compile_baseline: bool, quick: bool,
          static_only: bool, as_json: bool) -> None:
    """Verify CANDIDATE (a Python file defining ModelNew) on TASK (an id like L1/relu or a
    task file) and print its verdict. Exits 0 whenever a verdict was produced, whatever it
    says; 2 when the task or the candidate file is unusable."""
    from kerneltrials.tasks import TaskError
    from kerneltrials.verifier import QUICK_TIMING, check as run_check

    try:
        source = candidate.read_text()
    except OSError as error:
        fail(f"cannot read candidate {candidate}: {error.strerror}")
    try:
        with stderr_console.status("verifying…") as status:
            verdict = run_check(
                task, source, backend=backend, profile=profile, policy=policy, sandbox=sandbox,
                hidden_seed=hidden_seed, compile_baseline=compile_baseline,
                static_only=static_only, timing=QUICK_TIMING if quick else None,
                progress=lambda stage: status.update(f"{stage}…"),
            )
    except TaskError as error:
        fail(f"task {error.path}: {error.cause}")
    except ValueError as error:
        fail(str(error))
    if as_json:
        print_json(verdict.to_dict())
        return
    _print_verdict(verdict)


def _print_verdict(verdict: object) -> None:
    from kerneltrials.verifier import Verdict

    assert isinstance(verdict, Verdict)
    style = _STATUS_STYLE.get(verdict.status.value, "bold")
    speed = "" if verdict.speedup is None else f"  speedup {verdict.speedup:.2f}x vs eager"
    if verdict.speedup_compile is not None:
        speed += f", {verdict.speedup_compile:.2f}x vs torch.compile"
    header = escape(f"{verdict.task} ({verdict.backend}, policy {verdict.policy}): ")
    stdout_console.print(f"{header}[{style}]{verdict.status.value}[/]{escape(speed)}")
    if verdict.configs:
        table = Table("config", "kind", "passed", "max abs err", "candidate ms", "eager ms")
        for config in verdict.configs:
            times = config.times_ms
            table.add_row(config.name, config.kind, "yes" if config.passed else "NO",
                          "" if config.max_abs_err is None else f"{config.max_abs_err:.2e}",
                          f"{times['candidate'].median:.3f}" if "candidate" in times else "",
                          f"{times['eager'].median:.3f}" if "eager" in times else "")
        stdout_console.print(table)
    for reason in verdict.reasons:
        stdout_console.print(f"  • {escape(reason)}", highlight=False)
