"""``kerneltrials eval``: a model (or agent) on the task set, every attempt stored."""

from __future__ import annotations

from typing import Any

import click

from kerneltrials.commands._common import (
    backend_option,
    inputs_option,
    json_option,
    profile_option,
)
from kerneltrials.commands._run_summary import run_and_report


@click.command("eval")
@click.option("--model", required=True,
              help="PROVIDER:MODEL (openai:gpt-4.1, anthropic:…, openai-compatible:…, "
                   "replay:FILE.jsonl) or `reference` (the shipped solutions, no API key).")
@click.option("--agent", default="one-shot", show_default=True,
              help="Strategy: one-shot, best-of-n, refine, coder-judge, or FILE.py:ClassName.")
@backend_option
@click.option("--tasks", "selector", default="L1", show_default=True,
              help="Levels, ids or globs, comma-separated: L1, L1/relu, 'L2/*conv*'.")
@profile_option
@click.option("--run", "run_name", default=None, help="Run name [default: model-agent-time].")
@click.option("--db", default=None, envvar="KERNELTRIALS_DB",
              help="Results store [default: ./kerneltrials.sqlite or $KERNELTRIALS_DB].")
@click.option("--executor", default="ray", show_default=True,
              help="ray: a local Ray instance or --ray-address; local: this process only; "
                   "or an executor registered by a plug-in (entry point group "
                   "kerneltrials.executors).")
@click.option("--ray-address", default=None, envvar="RAY_ADDRESS",
              help="Join this Ray cluster instead of starting a local instance.")
@click.option("--max-concurrency", default=2, show_default=True, type=click.IntRange(1, 1024),
              help="Task episodes in flight at once.")
@click.option("--max-cost", "max_cost", type=float, default=None,
              help="Stop cleanly (and resumably) before the spend would pass this many USD.")
@click.option("--resume", is_flag=True, help="Continue the run named by --run.")
@click.option("--hidden-seed", type=int, default=None,
              help="Seed of the hidden shapes [default: fresh per run, recorded].")
@click.option("--samples", type=int, default=None, help="Samples per task (best-of-n).")
@click.option("--rounds", type=int, default=None, help="Rounds per task (refine, coder-judge).")
@click.option("--base-url", default=None, help="Server of an openai-compatible model.")
@click.option("--max-attempts", type=click.IntRange(1, 100), default=None,
              help="Tries per LLM call before the task is recorded as `error` (rate limits, "
                   "server errors; waits grow between tries) [default: 6].")
@click.option("--record", "record_path", default=None, type=click.Path(dir_okay=False),
              help="Also write every LLM call to this JSONL (rerun it with --model replay:FILE).")
@click.option("--compile-baseline/--no-compile-baseline", default=True, show_default=True,
              help="Also time torch.compile for speedup_compile.")
@click.option("--quick", is_flag=True, help="Short, noisy timing (smoke runs, not for scores).")
@click.option("--baselines", type=click.Choice(["shared", "per-check"]), default="shared",
              show_default=True,
              help="shared: time eager and torch.compile once per task configuration and "
                   "divide every candidate of the run by the same baseline; per-check: "
                   "every verification times its own beside its candidate.")
@inputs_option
@click.option("--error-retries", type=click.IntRange(0, 10), default=2, show_default=True,
              help="Verify an attempt again this many times while its verdict is `error` "
                   "(a failure of the machine, never charged to the candidate).")
@json_option
def eval_command(model: str, agent: str, backend: str, selector: str, profile: str | None,
                 run_name: str | None, db: str | None, executor: str, ray_address: str | None,
                 max_concurrency: int, max_cost: float | None, resume: bool,
                 hidden_seed: int | None, samples: int | None, rounds: int | None,
                 base_url: str | None, max_attempts: int | None, record_path: str | None,
                 compile_baseline: bool,
                 quick: bool, baselines: str, inputs: str, error_retries: int, as_json: bool) -> None:
    """Evaluate MODEL with AGENT on the selected tasks; every verdict is stored at once.

    Interrupt it at any time (Ctrl-C or SIGTERM: the verifications in flight are
    cancelled within seconds and the run is marked interrupted): `--resume --run NAME`
    continues without redoing finished tasks. At the end the fast_p table is printed (see
    `kerneltrials score`). Exit status: 0 every task finished; 1 the run stopped early
    (--max-cost, the model's provider failing; the cause is the last line); 2 bad input
    (unknown task, model, an address or key the pre-flight check rejects); 130/143
    interrupted by SIGINT/SIGTERM."""
    from kerneltrials.scheduler import EvalConfig
    from kerneltrials.verifier import QUICK_TIMING, CheckOptions, TimingOptions

    check = CheckOptions(backend=backend, profile=profile, compile_baseline=compile_baseline,
                         timing=QUICK_TIMING if quick else TimingOptions(), inputs=inputs,
                         reuse_baselines=baselines == "shared")
    strategy_options = {k: v for k, v in (("samples", samples), ("rounds", rounds)) if v}
    config = EvalConfig(model=model, agent=agent, backend=backend, tasks=selector,
                        profile=profile, run_name=run_name, db=db, executor=executor,
                        ray_address=ray_address, max_concurrency=max_concurrency,
                        max_cost_usd=max_cost, resume=resume, hidden_seed=hidden_seed,
                        check=check, strategy_options=strategy_options,
                        provider_options=_provider_options(base_url, max_attempts),
                        record_path=record_path, error_retries=error_retries)
    run_and_report(config, as_json)


def _provider_options(base_url: str | None, max_attempts: int | None) -> dict[str, Any]:
    options: dict[str, Any] = {"base_url": base_url, "max_attempts": max_attempts}
    return {key: value for key, value in options.items() if value is not None}
