"""The handler table of a worker: one entry per operation it answers.

Built once, before any candidate code runs; the integrity snapshot watches each entry's
identity (a candidate that swaps a handler is caught: ``integrity:harness_patched``).
"""

from __future__ import annotations

from kerneltrials.verifier import protocol as wire
from kerneltrials.verifier.protocol import Handler
from kerneltrials.verifier.worker._backward import grad_op
from kerneltrials.verifier.worker._collect import collect_op
from kerneltrials.verifier.worker._ops import (
    exit_op,
    fresh_reference_op,
    inputs_op,
    load_candidate_op,
    load_task_op,
    pool_reference_op,
    reference_op,
    setup_op,
)
from kerneltrials.verifier.worker._profile import profile_op
from kerneltrials.verifier.worker._run import run_op, save_kept_op, time_op

HANDLERS: dict[str, Handler] = {
    wire.LoadTask.op: Handler(wire.LoadTask, load_task_op),
    wire.LoadCandidate.op: Handler(wire.LoadCandidate, load_candidate_op),
    wire.Setup.op: Handler(wire.Setup, setup_op),
    wire.Inputs.op: Handler(wire.Inputs, inputs_op),
    wire.Reference.op: Handler(wire.Reference, reference_op),
    wire.PoolReference.op: Handler(wire.PoolReference, pool_reference_op),
    wire.FreshReference.op: Handler(wire.FreshReference, fresh_reference_op),
    wire.Run.op: Handler(wire.Run, run_op),
    wire.SaveKept.op: Handler(wire.SaveKept, save_kept_op),
    wire.Time.op: Handler(wire.Time, time_op),
    wire.Grad.op: Handler(wire.Grad, grad_op),
    wire.Profile.op: Handler(wire.Profile, profile_op),
    wire.Collect.op: Handler(wire.Collect, collect_op),
    wire.Exit.op: Handler(wire.Exit, exit_op),
}
