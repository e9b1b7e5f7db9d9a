"""``kerneltrials import``: a peer's published kernels, judged here and stored as a run."""

from __future__ import annotations

from pathlib import Path

import click

from kerneltrials.commands._common import backend_option, fail, json_option
from kerneltrials.commands._run_summary import run_and_report


@click.group("import")
def import_group() -> None:
    """Bring published generations in as runs of a named model."""


@import_group.command("jsonl")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--model", "model_name", required=True,
              help="The name the run is stored under, e.g. 'CUDA-L1 (A100)'.")
@backend_option
@click.option("--run", "run_name", default=None, help="Run name [default: model-import-time].")
@click.option("--db", default=None, envvar="KERNELTRIALS_DB",
              help="Results store [default: ./kerneltrials.sqlite or $KERNELTRIALS_DB].")
@click.option("--tasks-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where the problems' task files are written [default: beside the store, "
                   "kerneltrials-imports/RUN].")
@click.option("--executor", default="ray", show_default=True, help="ray or local (see eval).")
@click.option("--quick", is_flag=True, help="Short, noisy timing (smoke runs, not for scores).")
@click.option("--compile-baseline/--no-compile-baseline", default=True, show_default=True,
              help="Also time torch.compile for speedup_compile.")
@click.option("--resume", is_flag=True, help="Continue the import named by --run.")
@json_option
def jsonl(path: Path, model_name: str, backend: str, run_name: str | None, db: str | None,
          tasks_dir: Path | None, executor: str, quick: bool, compile_baseline: bool,
          resume: bool, as_json: bool) -> None:
    """Judge PATH, one generation per line as CUDA-L1 released them (level_id, task_id,
    ref_code: the KernelBench problem, custom_code: the ModelNew file), with the full
    verifier, and store the verdicts as a run of MODEL: the leaderboard then shows a peer's
    claims beside what survives verification. Each problem becomes a task file
    (kb/L<level>/<task_id>); on a machine without the backend's device the verdicts stop
    after the static checks and the build (`not_run`). Interrupt and --resume as eval."""
    import time

    from kerneltrials.results import resolve_db_path
    from kerneltrials.scheduler import EvalConfig
    from kerneltrials.scheduler._generations import (
        GenerationsError,
        prepare_import,
        read_generations,
    )
    from kerneltrials.verifier import QUICK_TIMING, CheckOptions, TimingOptions

    try:
        generations = read_generations(path)
    except GenerationsError as error:
        fail(str(error))
    run = run_name or f"{_slug(model_name)}-import-{time.strftime('%Y%m%d-%H%M%S')}"
    dest = tasks_dir or resolve_db_path(db).resolve().parent / "kerneltrials-imports" / run
    prepared = prepare_import(generations, dest)
    check = CheckOptions(backend=backend, compile_baseline=compile_baseline,
                         timing=QUICK_TIMING if quick else TimingOptions())
    config = EvalConfig(model=f"replay:{prepared.replay_path}", model_label=model_name,
                        agent="one-shot", backend=backend,
                        tasks=",".join(str(p) for p in prepared.task_paths), run_name=run, db=db,
                        executor=executor, check=check, resume=resume)
    run_and_report(config, as_json, {"tasks_dir": str(dest), "generations": len(generations)})


def _slug(name: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower() or "model"
