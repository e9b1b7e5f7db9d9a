"""Backward correctness (tasks with ``"backward": True``), decided in the parent.

The candidate implements its backward (e.g. a ``torch.autograd.Function`` with custom
backward kernels); the gradients of every floating input and parameter must match the
reference's within the task's tolerance, and under the ``strict`` policy no PyTorch
compute op may run during backward (views, allocation and autograd's own bookkeeping
aside).
"""

from __future__ import annotations

from typing import Any

import torch

from kerneltrials.tasks import ShapeConfig
from kerneltrials.verifier import protocol as wire
from kerneltrials.verifier.harness._compare import Comparison, compare_tensor
from kerneltrials.verifier.harness._failures import candidate_failure, reference_failure
from kerneltrials.verifier.harness._jobs import ForgedReply, JobDied, WorkerFailed, WorkerJob
from kerneltrials.verifier.harness._judge import candidate_tensors
from kerneltrials.verifier.harness._session import Outcome, Session, load_trusted
from kerneltrials.verifier.verdict import ConfigResult, Status

#: What the autograd engine itself may run while it routes gradients.
AUTOGRAD_BOOKKEEPING = frozenset({"aten.detach", "aten.ones_like", "aten.zeros_like",
                                  "aten.empty_like", "aten.copy", "aten.fill", "aten.zero"})


def compare_gradients(expected: dict[str, Any], produced: dict[str, Any], atol: float,
                      rtol: float) -> Comparison:
    """Every reference gradient must exist on the candidate side and match."""
    result = Comparison()
    for index, grad in enumerate(expected["input_grads"]):
        if grad is None:
            continue
        mine = produced["input_grads"][index] if index < len(produced["input_grads"]) else None
        _compare_one(grad, mine, f"grad_input{index}", atol, rtol, result)
    for name, grad in expected["param_grads"].items():
        if grad is not None:
            _compare_one(grad, produced["param_grads"].get(name), f"grad[{name}]", atol, rtol, result)
    return result


def _compare_one(expected: torch.Tensor, produced: Any, label: str, atol: float, rtol: float,
                 result: Comparison) -> None:
    if not isinstance(produced, torch.Tensor):
        result.fail(f"correctness:grad_missing[{label}]")
        return
    compare_tensor(expected, produced, atol, rtol, result, label=label)


def check_backward(session: Session, reference: WorkerJob, candidate: WorkerJob,
                   config: ShapeConfig, seed: int, result: ConfigResult) -> None:
    """Candidate first, then the reference; failures go on the configuration's result."""
    tag = f"{config.name}-{seed}"
    inputs = session.inputs_path(config.name, seed)
    mine, theirs = session.path("candidate-out", f"grads-{tag}.pt"), session.path("private", f"grads-{tag}.pt")
    timeout = session.options.call_timeout_s
    try:
        reply = candidate.request(wire.Grad(config=config.name, inputs_path=inputs, path=mine,
                                            seed=seed), timeout)
    except (WorkerFailed, JobDied, ForgedReply) as error:
        raise candidate_failure(error, f"backward[{config.name}]") from error
    try:
        reference.request(wire.Grad(config=config.name, inputs_path=inputs, path=theirs,
                                    seed=seed), timeout)
    except (WorkerFailed, JobDied, ForgedReply) as error:
        raise reference_failure(error, session.task.path) from error
    _apply_policy(session, reply.backward_ops)
    try:
        produced = candidate_tensors(session, mine, f"{config.name} (backward)")
    except Outcome:
        raise
    except Exception as error:
        raise Outcome(Status.INCORRECT, f"correctness:unreadable_gradients:{error}") from error
    comparison = compare_gradients(load_trusted(theirs), produced,
                                   *session.task.tolerance())
    session.discard(mine, theirs)
    if not comparison.passed:
        result.passed = False
        result.detail = result.detail or comparison.reasons[0]
        session.reasons += [f"{reason} on {config.name}" for reason in comparison.reasons]


def _apply_policy(session: Session, ops: list[str]) -> None:
    policy = session.options.policy or session.task.default_policy()
    compute = sorted(set(ops) - AUTOGRAD_BOOKKEEPING)
    if policy == "strict" and compute:
        raise Outcome(Status.REJECTED, f"policy:torch_compute_in_backward:{','.join(compute)}")
