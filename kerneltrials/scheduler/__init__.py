"""Scheduling verification jobs (Ray or local) and running evaluations."""

from kerneltrials.scheduler._budget import BudgetExhausted, Spend
from kerneltrials.scheduler._eval import EvalConfig, EvalReporter, EvalSummary, run_eval
from kerneltrials.scheduler._executor import (
    EXECUTORS,
    Executor,
    LocalExecutor,
    VerificationCancelled,
    resolve_executor,
)
from kerneltrials.scheduler._selector import select_tasks

__all__ = [
    "EXECUTORS",
    "BudgetExhausted",
    "EvalConfig",
    "EvalReporter",
    "EvalSummary",
    "Executor",
    "LocalExecutor",
    "Spend",
    "VerificationCancelled",
    "resolve_executor",
    "run_eval",
    "select_tasks",
]
