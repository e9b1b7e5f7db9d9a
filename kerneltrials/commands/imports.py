"""``kerneltrials import``: a peer's published kernels, judged here and stored as a run."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from rich.markup import escape
from rich.table import Table

from kerneltrials.commands._common import (
    backend_option,
    fail,
    json_option,
    print_json,
    stderr_console,
    stdout_console,
)


@click.group("import")
def import_group() -> None:
    """Bring published generations in as runs of a named model."""


def _import_options(command: Callable[..., None]) -> Callable[..., None]:
    """The options both formats share: where the run goes and how it is judged."""
    options = [
        backend_option,
        click.option("--run", "run_name", default=None,
                     help="Run name [default: model-import-time]."),
        click.option("--db", default=None, envvar="KERNELTRIALS_DB",
                     help="Results store [default: ./kerneltrials.sqlite or $KERNELTRIALS_DB]."),
        click.option("--tasks-dir", type=click.Path(file_okay=False, path_type=Path),
                     default=None, help="Where the problems' task files are written [default: "
                     "beside the store, kerneltrials-imports/RUN]."),
        click.option("--executor", default="ray", show_default=True,
                     help="ray or local (see eval)."),
        click.option("--quick", is_flag=True, help="Short, noisy timing (smoke runs, not for "
                     "scores)."),
        click.option("--compile-baseline/--no-compile-baseline", default=True,
                     show_default=True, help="Also time torch.compile for speedup_compile."),
        click.option("--resume", is_flag=True, help="Continue the import named by --run."),
        click.option("--static-only", is_flag=True,
                     help="Only the static screen of every generation against its problem "
                          "(milliseconds each; nothing is built, run or stored): how much of a "
                          "published set is rejected before anything runs."),
        json_option,
    ]
    for option in reversed(options):
        command = option(command)
    return command


@import_group.command("jsonl")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--model", "model_name", required=True,
              help="The name the run is stored under, e.g. 'CUDA-L1 (A100)'.")
@_import_options
def jsonl(path: Path, model_name: str, **options: Any) -> None:
    """Judge PATH, one generation per line as CUDA-L1 released them (level_id, task_id,
    ref_code: the KernelBench problem, custom_code: the ModelNew file), with the full
    verifier, and store the verdicts as a run of MODEL: the leaderboard then shows a peer's
    claims beside what survives verification. Each problem becomes a task file
    (kb/L<level>/<task_id>); on a machine without the backend's device the verdicts stop
    after the static checks and the build (`not_run`). Interrupt and --resume as eval."""
    from kerneltrials.scheduler._generations import GenerationsError, read_generations

    try:
        generations = read_generations(path)
    except GenerationsError as error:
        fail(str(error))
    _judge(generations, model_name, {}, **options)


@import_group.command("kernelbench-runs")
@click.argument("run_dir", metavar="DIR", type=click.Path(file_okay=False, path_type=Path))
@click.option("--problems", "problems_dir", required=True,
              type=click.Path(file_okay=False, path_type=Path),
              help="KernelBench's problem folder (its KernelBench/, holding level1/ ...): the "
                   "run folder has the kernels, not the problems they answer.")
@click.option("--model", "model_name", default=None,
              help="The name the run is stored under [default: model_name of the folder's "
                   "generation_config.yaml].")
@click.option("--sample", type=click.IntRange(min=0), default=None,
              help="Import only this sample of each problem [default: every sample, judged "
                   "as best-of-n].")
@_import_options
def kernelbench_runs(run_dir: Path, problems_dir: Path, model_name: str | None,
                     sample: int | None, **options: Any) -> None:
    """Judge DIR, a run folder written by KernelBench's generate_samples.py
    (level_<L>_problem_<P>_sample_<S>_kernel.py files), with the full verifier and store the
    verdicts as a run of MODEL. Each kernel is paired with its problem,
    --problems/level<L>/<P>_<name>.py, which becomes the task kb/L<L>/<P>_<name>; several
    samples per problem are judged as best-of-n (each is an attempt, the best counts). Where the folder has
    KernelBench's eval_results.json, its claims are counted beside the run's (reported,
    never trusted). Interrupt and --resume as eval."""
    from kerneltrials.scheduler._generations import GenerationsError
    from kerneltrials.scheduler._kernelbench_runs import (
        read_claims,
        read_kernelbench_run,
        run_model_name,
    )

    try:
        generations = read_kernelbench_run(run_dir, problems_dir, sample)
    except GenerationsError as error:
        fail(str(error))
    name = model_name or run_model_name(run_dir)
    if name is None:
        fail(f"{run_dir}: no --model given and no model_name in its generation_config.yaml")
    extra: dict[str, Any] = {}
    claims = read_claims(run_dir, generations, sample)
    if claims is not None:
        extra["claimed"] = {"samples": claims.samples, "compiled": claims.compiled,
                            "correct": claims.correct}
        if not options["as_json"] and not options["static_only"]:
            stderr_console.print(_claims_line(extra["claimed"]), highlight=False,
                                 soft_wrap=True)
    _judge(generations, name, extra, **options)


def _judge(generations: list[Any], model_name: str, extra: dict[str, Any], *, backend: str,
           run_name: str | None, db: str | None, tasks_dir: Path | None, executor: str,
           quick: bool, compile_baseline: bool, resume: bool, static_only: bool,
           as_json: bool) -> None:
    """Write the problems and the replay file, then judge them as ``eval`` does (or screen
    them, with --static-only)."""
    import time

    from kerneltrials.commands._run_summary import run_and_report
    from kerneltrials.results import resolve_db_path
    from kerneltrials.scheduler import EvalConfig
    from kerneltrials.scheduler._generations import prepare_import
    from kerneltrials.verifier import QUICK_TIMING, CheckOptions, TimingOptions

    if static_only:
        _screen(generations, backend, as_json, extra)
        return
    run = run_name or f"{_slug(model_name)}-import-{time.strftime('%Y%m%d-%H%M%S')}"
    dest = tasks_dir or resolve_db_path(db).resolve().parent / "kerneltrials-imports" / run
    prepared = prepare_import(generations, dest)
    check = CheckOptions(backend=backend, compile_baseline=compile_baseline,
                         timing=QUICK_TIMING if quick else TimingOptions())
    strategy_options = {"samples": prepared.samples} if prepared.samples > 1 else {}
    config = EvalConfig(model=f"replay:{prepared.replay_path}", model_label=model_name,
                        agent=prepared.strategy, strategy_options=strategy_options,
                        backend=backend, tasks=",".join(str(p) for p in prepared.task_paths),
                        run_name=run, db=db, executor=executor, check=check, resume=resume)
    run_and_report(config, as_json, {"tasks_dir": str(dest), "generations": len(generations),
                                     **extra})


def _screen(generations: list[Any], backend: str, as_json: bool,
            extra: dict[str, Any]) -> None:
    """The static verdict of every generation; nothing is written but a scratch copy of the
    problems (a task is loaded from a file)."""
    import tempfile

    from kerneltrials.scheduler._generations import prepare_import
    from kerneltrials.tasks import TaskError, load_task
    from kerneltrials.verifier.static._screen import static_verdict
    from kerneltrials.verifier.verdict import Status

    rows = []
    with tempfile.TemporaryDirectory(prefix="kt-import-screen-") as scratch:
        prepared = prepare_import(generations, Path(scratch))
        tasks = {}
        for path in prepared.task_paths:
            try:
                tasks[path.stem, path.parent.name] = load_task(str(path))
            except TaskError as error:
                fail(f"problem {path.parent.name}/{path.name}: {error.cause}")
        for generation in generations:
            spec = tasks[generation.task, f"level{generation.level}"]
            verdict = static_verdict(spec, generation.custom_code, backend)
            rows.append((generation, verdict))
    passed = sum(verdict.status is Status.NOT_RUN for _, verdict in rows)
    # "static:no_device_kernel: ..." counts as static:no_device_kernel
    reasons = Counter(":".join(verdict.reasons[0].split(":")[:2]) for _, verdict in rows
                      if verdict.status is not Status.NOT_RUN and verdict.reasons)
    if as_json:
        print_json({"generations": len(rows), "pass_screen": passed, **extra,
                    "first_reasons": dict(reasons.most_common()),
                    "verdicts": [{"task": f"kb/L{g.level}/{g.task}", "sample": g.sample,
                                  **verdict.to_dict()} for g, verdict in rows]})
        return
    table = Table("task", "sample", "status", "first reason")
    for generation, verdict in rows:
        table.add_row(escape(f"kb/L{generation.level}/{generation.task}"),
                      str(generation.sample), verdict.status.value,
                      escape(verdict.reasons[0] if verdict.reasons else ""))
    stdout_console.print(table)
    stdout_console.print(f"{len(rows) - passed} of {len(rows)} generations rejected by the "
                         f"static screen alone; {passed} would go on to build", highlight=False,
                         soft_wrap=True)
    for reason, count in reasons.most_common():
        stdout_console.print(f"  {count:5}  {escape(reason)}", highlight=False)
    if "claimed" in extra:
        stdout_console.print(_claims_line(extra["claimed"]), highlight=False, soft_wrap=True)


def _claims_line(claimed: dict[str, int]) -> str:
    return (f"KernelBench's own eval_results.json claims {claimed['correct']} of "
            f"{claimed['samples']} imported samples correct ({claimed['compiled']} compiled)")


def _slug(name: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower() or "model"
