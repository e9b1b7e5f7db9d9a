"""``run_eval``: a model and a strategy on a task selection, every attempt stored.

An episode is one task's agent session. Episodes run in threads (``max_concurrency``),
each verdict comes from the executor (Ray by default) and is committed the moment it
exists; a finished episode is marked so ``resume`` skips it. An ``error`` verdict is the
machine's fault: the attempt is verified again (``error_retries``) before it is stored,
and one that stays ``error`` is excluded from the score.

A SIGINT or SIGTERM (``_interrupts``) stops it: no new episode starts, the verifications
in flight are cancelled (their jobs killed, their attempts not stored), and the run is
marked ``interrupted`` within seconds; a second signal stops waiting at once. See
docs/design/eval.md.
"""

from __future__ import annotations

import secrets
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from kerneltrials._version import __version__
from kerneltrials.agents import (
    Attempt,
    ProviderUnavailable,
    ProviderUserError,
    StrategyContext,
    describe_hardware,
    resolve_provider,
    resolve_strategy,
)
from kerneltrials.results import ResultsStore, RunRecord, open_store, score_run
from kerneltrials.scheduler._budget import BudgetedProvider, BudgetExhausted, Spend
from kerneltrials.scheduler._executor import Executor, VerificationCancelled, resolve_executor
from kerneltrials.scheduler._interrupts import Interrupts
from kerneltrials.scheduler._provenance import git_commit, task_set_version
from kerneltrials.scheduler._selector import select_tasks
from kerneltrials.tasks import TaskSpec, public_configs
from kerneltrials.verifier import CheckOptions
from kerneltrials.verifier.verdict import Verdict, resolve_policy


@dataclass(frozen=True)
class EvalConfig:
    """Everything ``kerneltrials eval`` takes; each field is one CLI option."""

    model: str  # "reference", "replay:run.jsonl", "openai:gpt-4.1", ...
    agent: str = "one-shot"  # a strategy name or path/to/file.py:ClassName
    backend: str = "cpu"
    tasks: str = "L1"  # selector: levels, ids, globs, comma-separated
    profile: str | None = None
    run_name: str | None = None
    db: str | None = None
    executor: str = "ray"  # "ray" (default) or "local" (no Ray, one process)
    ray_address: str | None = None
    max_concurrency: int = 2  # episodes in flight
    max_cost_usd: float | None = None
    resume: bool = False
    hidden_seed: int | None = None  # default: a fresh seed per run, recorded
    check: CheckOptions = field(default_factory=CheckOptions)
    provider_options: dict[str, Any] = field(default_factory=dict)
    strategy_options: dict[str, Any] = field(default_factory=dict)
    record_path: str | None = None  # also write every LLM call to this replay file
    model_label: str | None = None  # the model's name on the run, when not ``model`` (imports)
    error_retries: int = 2  # verifications again after an ``error`` verdict (the machine's)
    retry_backoff_s: float = 2.0  # first wait before such a retry; doubled each time


class EvalReporter(Protocol):
    """Progress hooks (the CLI draws a rich display; the API may pass nothing)."""

    def on_start(self, run: str, total: int, already_done: int) -> None: ...

    def on_attempt(self, task_id: str, verdict: Verdict, spend: Spend) -> None: ...

    def on_episode(self, task_id: str, outcome: str) -> None: ...

    # Optional: ``on_provider_retry(message)``, told of every failed LLM call that will be
    # tried again (rate limits, server errors, an unreachable endpoint).


class _SilentReporter:
    def on_start(self, run: str, total: int, already_done: int) -> None: ...

    def on_attempt(self, task_id: str, verdict: Verdict, spend: Spend) -> None: ...

    def on_episode(self, task_id: str, outcome: str) -> None: ...


#: After the first signal, how long the episodes in flight get to wind down (their jobs
#: are killed at once; an LLM call in flight is not waited for beyond this).
INTERRUPT_GRACE_S = 10.0


@dataclass
class EvalSummary:
    run: str
    status: str  # "finished", "stopped" or "interrupted"
    stop_reason: str | None
    episodes: dict[str, str]  # task id -> "done" | "budget" | "provider_error" | "skipped" ...
    score: Any  # the stored eager ScoreReport (``.to_json()`` for data)
    db: str = ""  # the store's path (the ``--resume`` command names it)
    signal: int | None = None  # the signal that interrupted the run


def resolve_model(spec: str, options: dict[str, Any]) -> Any:
    """A provider for ``--model``; ``reference`` alone means the shipped solutions."""
    return resolve_provider("reference:solutions" if spec == "reference" else spec, **options)


def _open_run(store: ResultsStore, config: EvalConfig,
              tasks: list[TaskSpec]) -> tuple[RunRecord, int]:
    if config.resume:
        if not config.run_name:
            raise ValueError("--resume needs --run NAME (the run to continue)")
        run = store.reopen_run(config.run_name)
        return run, int(run.hidden_seed if run.hidden_seed is not None else 0)
    from kerneltrials.verifier.harness._hardware import hardware_fingerprint

    seed = config.hidden_seed if config.hidden_seed is not None else secrets.randbits(31)
    settings = {"tasks": config.tasks, "max_concurrency": config.max_concurrency,
                "max_cost_usd": config.max_cost_usd, "executor": config.executor,
                "strategy_options": config.strategy_options,
                "error_retries": config.error_retries, "provider": config.model,
                "check": {k: v for k, v in asdict(config.check).items() if k != "timing"},
                "timing": asdict(config.check.timing)}
    run = store.create_run(
        model=config.model_label or config.model, agent=config.agent, backend=config.backend,
        profile=config.profile or config.check.resolved_profile(), name=config.run_name,
        hardware=hardware_fingerprint(config.backend), harness_version=__version__,
        task_set_version=task_set_version(), git_commit=git_commit(), hidden_seed=seed,
        config=settings, task_ids=[task.id for task in tasks])
    return run, seed


class _Episodes:
    """Runs and records episodes; shared by the worker threads of one eval."""

    def __init__(self, config: EvalConfig, store: ResultsStore, run: RunRecord, seed: int,
                 provider: BudgetedProvider, executor: Executor, reporter: EvalReporter) -> None:
        self.config, self.store, self.run, self.seed = config, store, run, seed
        self.provider, self.executor, self.reporter = provider, executor, reporter
        self.stop = threading.Event()
        self.stop_reason: str | None = None
        self.provider_errors: dict[str, str] = {}
        self.hardware = describe_hardware(config.backend)
        self.profile = config.profile or config.check.resolved_profile()

    def halt(self, reason: str) -> None:
        self.stop_reason = self.stop_reason or reason
        self.stop.set()

    def run_one(self, task: TaskSpec) -> str:
        spend = self.provider.spend
        if not self.stop.is_set() and spend.would_exceed():
            self.halt(f"--max-cost {spend.cap_usd} USD reached (spent {spend.cost_usd:.4f} USD)")
        if self.stop.is_set():
            return "skipped"
        strategy = resolve_strategy(self.config.agent, **self.config.strategy_options)
        recorded: list[int] = []
        strategy.attempt_observer = lambda attempt: self._record(task, attempt, recorded)
        context = StrategyContext(task_id=task.id, task_source=task.source,
                                  backend=self.config.backend, hardware=self.hardware,
                                  configs=tuple(public_configs(task, self.profile)),
                                  policy=resolve_policy(task, self.config.check.policy))
        try:
            strategy.run(context, self.provider, lambda source: self.executor.verify_retrying(
                task, source, self.seed, profile=strategy.wants_profile,
                retries=self.config.error_retries, backoff_s=self.config.retry_backoff_s))
        except BudgetExhausted as error:
            self.halt(str(error))
            return "budget"
        except ProviderUserError as error:
            self.halt(f"{type(error).__name__}: {error}")
            return "fatal"
        except ProviderUnavailable as error:
            self.provider_errors[task.id] = f"{type(error).__name__}: {error}"
            self._record_provider_failure(task, error, recorded)
            return "provider_error"
        except VerificationCancelled:
            return "interrupted"
        self.store.mark_episode_finished(self.run, task.id)
        return "done"

    def _record(self, task: TaskSpec, attempt: Attempt, recorded: list[int]) -> None:
        transcript = [{"name": call.name, "messages": [asdict(m) for m in call.messages],
                       "reply": call.completion.text, "usage": call.completion.to_dict()}
                      for call in attempt.calls]
        self.store.record_attempt(
            self.run, task.id, attempt.verdict, round=attempt.round, sample=attempt.sample,
            source=attempt.source, timings=dict(attempt.verdict.durations_s),
            prompt_tokens=attempt.prompt_tokens, completion_tokens=attempt.completion_tokens,
            cost_usd=attempt.cost_usd, transcript=transcript, replace=True)
        recorded.append(attempt.round)
        self.reporter.on_attempt(task.id, attempt.verdict, self.provider.spend)

    def _record_provider_failure(self, task: TaskSpec, error: Exception,
                                 recorded: list[int]) -> None:
        verdict = Verdict.infrastructure_error(task, self.config.backend,
                                               self.config.check.policy,
                                               f"agent:provider_unavailable:{error}", self.seed)
        next_round = max(recorded) + 1 if recorded else 0
        self.store.record_attempt(self.run, task.id, verdict, round=next_round, replace=True)
        self.reporter.on_attempt(task.id, verdict, self.provider.spend)


def run_eval(config: EvalConfig, reporter: EvalReporter | None = None) -> EvalSummary:
    """Evaluate ``config.model`` with ``config.agent`` on the selected tasks.

    Raises:
        TaskError: the selector names no task; ProviderUserError: bad model or key;
        StoreError: the store cannot be opened, the run exists (without ``resume``)...
    """
    reporter = reporter or _SilentReporter()
    store = open_store(config.db)
    config = _resumed_config(store, config) if config.resume else config
    tasks = select_tasks(config.tasks)
    provider = resolve_model(config.model, config.provider_options)
    provider.preflight()  # a wrong address or key is said now, before any work starts
    provider.retry_observer = getattr(reporter, "on_provider_retry", None)
    if config.record_path:
        from kerneltrials.agents import ReplayRecorder

        provider = ReplayRecorder(provider, config.record_path)
    resolve_strategy(config.agent, **config.strategy_options)  # fail before any work
    with Interrupts() as interrupts:
        run, seed = _open_run(store, config, tasks)
        try:
            return _evaluate(config, store, run, seed, tasks, provider, reporter, interrupts)
        except BaseException as error:  # the run is never left `running`
            _mark_cut_short(store, run, interrupts, error)
            raise


def _evaluate(config: EvalConfig, store: ResultsStore, run: RunRecord, seed: int,
              tasks: list[TaskSpec], provider: Any, reporter: EvalReporter,
              interrupts: Interrupts) -> EvalSummary:
    finished = store.finished_episodes(run)
    pending = [task for task in tasks if task.id not in finished]
    spent_before = sum(a.cost_usd or 0.0 for a in store.attempts_for_run(run))
    spend = Spend(config.max_cost_usd, spent_before)
    check = CheckOptions(**{**asdict(config.check), "timing": config.check.timing,
                            "backend": config.backend, "profile": config.profile})
    reporter.on_start(run.name, len(tasks), len(tasks) - len(pending))
    outcomes: dict[str, str] = {}
    with resolve_executor(config.executor, check, **_executor_kwargs(config)) as executor:
        interrupts.install()  # again: ray.init sets a SIGTERM handler of its own
        episodes = _Episodes(config, store, run, seed, BudgetedProvider(provider, spend),
                             executor, reporter)
        _run_episodes(episodes, pending, outcomes, interrupts)
    reason: str | None
    if interrupts.signal is not None:
        reason = f"interrupted by {interrupts.name}"
        store.finish_run(run, "interrupted", reason=reason)
        status = "interrupted"
    else:
        complete = all(task.id in finished or outcomes.get(task.id) == "done" for task in tasks)
        status = "finished" if complete else "stopped"
        reason = episodes.stop_reason or _provider_cause(episodes.provider_errors)
        store.finish_run(run, status, reason=reason)
    reports = {b: score_run(store, run.name, baseline=b, save=True) for b in ("eager", "compile")}
    return EvalSummary(run.name, status, reason, outcomes, reports["eager"], db=str(store.path),
                       signal=interrupts.signal)


def _mark_cut_short(store: ResultsStore, run: RunRecord, interrupts: Interrupts,
                    error: BaseException) -> None:
    """Mark a run whose ``eval`` ended by an exception: ``interrupted`` for a signal (Ray's
    own SIGTERM handler exits, Ctrl-C while a handler of ours is not in place), else
    ``stopped`` with the error as the reason."""
    if interrupts.signal is not None or isinstance(error, KeyboardInterrupt | SystemExit):
        status, reason = "interrupted", f"interrupted by {interrupts.name or type(error).__name__}"
    else:
        status, reason = "stopped", f"eval failed: {type(error).__name__}: {error}"[:500]
    try:
        store.finish_run(run, status, reason=reason)
    except Exception:  # noqa: BLE001 - the first error is the one to report
        pass


def _provider_cause(errors: dict[str, str]) -> str | None:
    if not errors:
        return None
    first = sorted(errors)[0]
    return f"the model's provider failed on {len(errors)} task(s), e.g. {first}: {errors[first]}"


def _run_episodes(episodes: _Episodes, pending: list[TaskSpec], outcomes: dict[str, str],
                  interrupts: Interrupts) -> None:
    """Run ``pending`` in threads, recording each outcome as it ends. On the first signal
    the executor is cancelled and the episodes get ``INTERRUPT_GRACE_S`` to wind down; on
    a second, or after that, whatever still runs is abandoned (its attempt not stored)."""
    if interrupts.signal is not None:  # a signal while Ray started: start nothing
        episodes.halt(f"interrupted by {interrupts.name}")
    pool = ThreadPoolExecutor(max_workers=max(1, episodes.config.max_concurrency),
                              thread_name_prefix="kt-episode")
    futures: dict[Future[str], TaskSpec] = {pool.submit(episodes.run_one, t): t for t in pending}
    waiting, deadline = set(futures), None
    try:
        while waiting:
            done, waiting = wait(waiting, timeout=0.25, return_when=FIRST_COMPLETED)
            for future in done:
                task = futures[future]
                outcomes[task.id] = future.result()
                episodes.reporter.on_episode(task.id, outcomes[task.id])
            if interrupts.signal is not None and deadline is None:
                episodes.halt(f"interrupted by {interrupts.name}")
                episodes.executor.cancel()
                deadline = time.monotonic() + INTERRUPT_GRACE_S
            if deadline is not None and (interrupts.count > 1 or time.monotonic() > deadline):
                break
    finally:
        for future in waiting:
            outcomes.setdefault(futures[future].id, "interrupted")
        pool.shutdown(wait=not waiting, cancel_futures=True)


def _resumed_config(store: ResultsStore, config: EvalConfig) -> EvalConfig:
    """On ``--resume`` the stored run decides the model, agent, backend and tasks."""
    from dataclasses import replace

    if not config.run_name:
        raise ValueError("--resume needs --run NAME (the run to continue)")
    run = store.get_run(config.run_name)
    settings = run.config or {}
    return replace(config, model=settings.get("provider") or run.model,
                   model_label=run.model, agent=run.agent, backend=run.backend,
                   profile=run.profile, tasks=settings.get("tasks") or ",".join(run.task_ids),
                   strategy_options=settings.get("strategy_options", config.strategy_options))


def _executor_kwargs(config: EvalConfig) -> dict[str, Any]:
    return {"address": config.ray_address} if config.executor == "ray" else {}
