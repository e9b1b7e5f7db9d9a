"""``kerneltrials check TASK CANDIDATE``: verify one candidate kernel on one task."""

from __future__ import annotations

from pathlib import Path

import click
from rich.markup import escape
from rich.table import Table

from kerneltrials.commands._common import (
    backend_option,
    fail,
    inputs_option,
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
@click.argument("candidates", nargs=-1, required=True, type=click.Path(path_type=Path))
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
@inputs_option
@click.option("--static-only", is_flag=True,
              help="Run the static checks alone (milliseconds per candidate), build nothing; "
                   "accepts several candidate files or directories (screening).")
@click.option("--llm-verifier", default=None, metavar="PROVIDER:MODEL",
              help="Also ask an LLM to review the candidate (advisory: adds a reason, never "
                   "changes the status).")
@json_option
def check(task: str, candidates: tuple[Path, ...], backend: str, profile: str | None,
          sandbox: str, policy: str | None, hidden_seed: int | None, compile_baseline: bool,
          quick: bool, inputs: str, static_only: bool, llm_verifier: str | None,
          as_json: bool) -> None:
    """Verify CANDIDATE (a Python file defining ModelNew) on TASK (an id like L1/relu or a
    task file) and print its verdict. With --static-only, CANDIDATES may be several files
    or directories of them. Exits 0 whenever verdicts were produced, whatever they say;
    2 when the task or a candidate file is unusable."""
    if static_only:
        _screen(task, candidates, backend, policy, as_json)
        return
    if len(candidates) != 1 or candidates[0].is_dir():
        fail("one candidate file at a time (several files or directories need --static-only)")
    candidate = candidates[0]
    try:  # before the verifier's imports (torch: seconds), so a typo is told at once
        source = candidate.read_text()
    except OSError as error:
        fail(f"cannot read candidate {candidate}: {error.strerror}")
    from kerneltrials.tasks import TaskError, load_task

    try:  # torch-free too: an unusable task is told before anything starts
        spec = load_task(task)
    except TaskError as error:
        fail(f"task {error.path}: {error.cause}")
    from kerneltrials.verifier import prestart
    from kerneltrials.verifier.static import run_static_checks

    # The workers' imports beside the verifier's own, below; not for a candidate the
    # static checks (milliseconds, run again by the check) already turn away.
    if run_static_checks(source, backend, policy or spec.default_policy()).passed:
        prestart(backend, sandbox)
    from kerneltrials.verifier import QUICK_TIMING, CheckOptions
    from kerneltrials.verifier import check as run_check

    try:
        with stderr_console.status("verifying…") as status:
            verdict = run_check(
                spec, source, backend=backend, profile=profile, policy=policy, sandbox=sandbox,
                hidden_seed=hidden_seed, compile_baseline=compile_baseline,
                timing=QUICK_TIMING if quick else None,
                options=CheckOptions(llm_verifier=llm_verifier, inputs=inputs),
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


def _candidate_files(paths: tuple[Path, ...]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files += sorted(p for p in path.rglob("*.py") if p.is_file())
        elif path.is_file():
            files.append(path)
        else:
            fail(f"no such candidate file or directory: {path}")
    return files


def _screen(task: str, paths: tuple[Path, ...], backend: str, policy: str | None,
            as_json: bool) -> None:
    """Static checks only, without importing torch: milliseconds per candidate."""
    from kerneltrials.tasks import TaskError, load_task
    from kerneltrials.verifier.static._screen import static_verdict

    try:
        spec = load_task(task)
    except TaskError as error:
        fail(f"task {error.path}: {error.cause}")
    files = _candidate_files(paths)
    results = []
    for path in files:
        try:
            source = path.read_text()
        except (OSError, UnicodeDecodeError) as error:
            fail(f"cannot read candidate {path}: {error}")
        results.append((path, static_verdict(spec, source, backend, policy)))
    if as_json:
        items = [{"candidate": str(path), **verdict.to_dict()} for path, verdict in results]
        single = len(paths) == 1 and not paths[0].is_dir()
        print_json(items[0] if single else items)
        return
    table = Table("candidate", "status", "first reason")
    for path, verdict in results:
        style = _STATUS_STYLE.get(verdict.status.value, "bold")
        table.add_row(escape(str(path)), f"[{style}]{verdict.status.value}[/]",
                      escape(verdict.reasons[0] if verdict.reasons else ""))
    stdout_console.print(table)


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
