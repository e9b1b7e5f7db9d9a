"""The parent's judgement of what a candidate worker reported (docs/design/anticheat.md).

Everything here runs in the parent, on replies it checks and tensors it loads with
``weights_only=True``. Cheats end the verification (``Outcome`` with ``rejected``);
wrong answers become ``correctness:*`` reasons on the configuration.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from kerneltrials.tasks import ShapeConfig
from kerneltrials.verifier import protocol as wire
from kerneltrials.verifier.harness._candidate_files import TamperedFile, load_candidate_tensors
from kerneltrials.verifier.harness._compare import (
    compare_outputs,
    find_mutated_inputs,
    identical,
    non_exact_types,
    paired_blocks,
)
from kerneltrials.verifier.harness._sanitize import sanitize_candidate_text
from kerneltrials.verifier.harness._session import Outcome, Session
from kerneltrials.verifier.harness._work_share import (
    MIN_OWN_SHARE,
    MalformedWork,
    checked_work,
    describe,
    is_passthrough,
    own_shares,
)
from kerneltrials.verifier.protocol import leaves, paired_leaves
from kerneltrials.verifier.verdict import ConfigResult, Status


def reject(*reasons: str) -> Outcome:
    return Outcome(Status.REJECTED, *reasons)


#: The worker's own integrity findings a verdict keeps, each clipped: the list and its
#: texts come from the candidate's process, which could send megabytes of them.
MAX_WORKER_FINDINGS = 10


def reject_worker_findings(findings: list[str]) -> Outcome:
    """``rejected`` with the integrity findings a (possibly forged) reply carried."""
    return reject(*(sanitize_candidate_text(str(finding), 300)
                    for finding in findings[:MAX_WORKER_FINDINGS]))


def judge_structures(structures: list[Any]) -> None:
    """Outputs must be plain tensors with real (strided) storage on the expected device."""
    bad = sorted({name for s in structures for name in non_exact_types(s)})
    if bad:
        raise reject(f"integrity:output_not_plain_tensor:{', '.join(bad)}")
    for item in (leaf for leaf in leaves(structures) if isinstance(leaf, dict)):
        if item.get("device") != item.get("expected_device"):
            raise reject(f"integrity:output_wrong_device:{item.get('device')} "
                         f"(expected {item.get('expected_device')})")
        if item.get("layout") != "torch.strided":
            raise reject(f"integrity:output_no_storage:{item.get('layout')}")


def judge_policy(session: Session, config: ShapeConfig, ops: list[str],
                 torch_work: dict[str, float], where: str) -> None:
    """``strict``: no compute op ran; ``mixed``: PyTorch did not do (nearly) all of some
    kind of the reference's work (``_work_share``). The candidate's own shares go into
    the configuration's result, the smallest seen over its calls."""
    policy = str(session.options.policy)
    if policy == "strict" and ops:
        raise reject(f"policy:torch_compute:{','.join(ops)} executed in forward on {where} "
                     "(strict: the candidate's kernels must do all the compute)")
    reference = session.reference_work.get(config.name)
    if policy != "mixed" or not reference:
        return
    try:
        by_torch = checked_work(torch_work, wire.WORK_KINDS)
    except MalformedWork as error:
        raise reject(f"integrity:malformed_work_record:{error} on {where}") from error
    shares = own_shares(reference, by_torch)
    result = session.results.get(config.name)
    if result is not None:
        for kind, share in shares.items():
            result.own_work_shares[kind] = min(result.own_work_shares.get(kind, 1.0), share)
    if is_passthrough(shares):
        raise reject(f"policy:passthrough:PyTorch did the reference's work in forward on "
                     f"{where}: the candidate's own share of it is {describe(shares)}; "
                     f"its compiled code must do at least {MIN_OWN_SHARE:.0%} of one kind")


def candidate_tensors(session: Session, path: str, what: str) -> Any:
    """The tensors the candidate's worker saved at ``path`` (``what``: for the reason).
    A file swapped for a link, a pipe or anything but a plain file is ``rejected``; one
    that does not load raises as ``torch.load`` does (the caller's ``incorrect``)."""
    try:
        return load_candidate_tensors(path, session.options.file_size_limit())
    except TamperedFile as error:
        raise reject(f"integrity:tampered_output_file:{what}: the saved outputs were "
                     f"replaced by {error}") from None


def judge_run_reply(session: Session, config: ShapeConfig, reply: wire.RunReport) -> None:
    """The checks that need no tensor: integrity, kernels called, policy, aliasing."""
    if reply.integrity:
        raise reject_worker_findings(reply.integrity)
    judge_structures(reply.structures)
    if any(count == 0 for count in reply.kernel_calls):
        raise reject(f"integrity:no_custom_call:a call of forward ran no compiled function "
                     f"on {config.name}")
    judge_policy(session, config, reply.ops, reply.torch_work, config.name)
    if reply.aliases_input:
        raise reject(f"integrity:output_aliases_input on {config.name}")


def judge_outputs(session: Session, config: ShapeConfig, reply: wire.RunReport,
                  paths: dict[str, str], result: ConfigResult, expected: Any,
                  inputs: list[Any], produced: dict[str, Any] | None = None) -> None:
    """Correctness of the first call against the reference's ``expected``, then repeats,
    mutation of ``inputs``, re-addressing and replays, on the run's tensors: ``produced``
    (read out of the frozen worker), else its file."""
    try:
        if produced is None:
            produced = candidate_tensors(session, paths["outputs"], config.name)
        outputs, inputs_after = produced["outputs"], produced["inputs_after"]
    except Outcome:
        raise
    except Exception as error:  # the candidate controls that file: unreadable is its failure
        raise Outcome(Status.INCORRECT, f"correctness:unreadable_outputs:"
                      f"{sanitize_candidate_text(str(error), 300)}") from error
    atol, rtol = session.task.tolerance()
    first = compare_outputs(expected, outputs[0], atol, rtol)
    reasons = list(first.reasons)
    result.max_abs_err = max(result.max_abs_err or 0.0, first.max_abs_err)
    result.max_norm_err = max(result.max_norm_err or 0.0, first.max_norm_err)
    if first.passed and len(outputs) > 1 and not identical(outputs[0], outputs[1]):
        again = compare_outputs(outputs[0], outputs[1], atol, rtol)
        reasons += [f"correctness:repeat_mismatch ({r.split(':', 1)[-1]})" for r in again.reasons]
    reasons += [f"correctness:input_mutated[{i}]" for i in find_mutated_inputs(inputs, inputs_after)]
    _note_nonnegative_inputs(session, inputs)
    if reasons:
        result.passed = False
        result.detail = result.detail or reasons[0]
        session.reasons += [f"{reason} on {config.name}" for reason in reasons]
        return
    _judge_readdressed(produced.get("readdressed"), session.reference_pool(config.name), atol,
                       rtol, config)
    _judge_replays(produced.get("replays") or [], reply.replays, outputs[0], config)
    if reply.custom_share is not None:
        result.custom_shares.append(reply.custom_share)


NONNEGATIVE_NOTE = ("note:inputs:nonnegative: every floating input this file's get_inputs "
                     "draws is >= 0, so a kernel that mishandles negative values is not caught")


SIGNED_NOTE = ("note:inputs:signed: each floating input get_inputs drew all >= 0 had every "
               "element's sign drawn at random (inputs=signed)")


def _note_nonnegative_inputs(session: Session, inputs: list[Any]) -> None:
    """A file without TASK (KernelBench's, whose inputs are often ``torch.rand``) keeps its
    own inputs; the verdict says when they cannot exercise negative values, or that they
    were signed (``CheckOptions.inputs``). Our own tasks are validated against that before
    they ship (``tasks validate``)."""
    if session.options.inputs == "signed":
        if SIGNED_NOTE not in session.reasons:
            session.reasons.append(SIGNED_NOTE)
        return
    if session.task.has_task_dict or NONNEGATIVE_NOTE in session.reasons:
        return
    floats = [x for x in inputs if isinstance(x, torch.Tensor) and x.is_floating_point()
              and x.numel()]
    if floats and all(float(x.min()) >= 0 for x in floats):
        session.reasons.append(NONNEGATIVE_NOTE)


def _judge_readdressed(output: Any, pool: Any, atol: float, rtol: float,
                       config: ShapeConfig) -> None:
    if output is None:
        return
    expected = pool[0]
    if not compare_outputs(expected, output, atol, rtol).passed:
        raise reject(f"integrity:stale_output_same_address:new values written into the same "
                     f"input buffers gave a wrong output on {config.name} (cached by address?)")


def _judge_replays(outputs: list[Any], replays: list[wire.Replay], clean: Any,
                   config: ShapeConfig) -> None:
    if len(outputs) != len(replays):
        raise reject("integrity:malformed_replays")
    for poisoned, replay in zip(outputs, replays, strict=True):
        if not replay.poisoned:
            continue  # the call produced nothing to poison (an empty tensor): no evidence
        if not _changed(clean, poisoned):
            raise reject(f"integrity:custom_output_unused:{replay.name}#{replay.index}"
                         f" (poisoning its output left forward's output unchanged on {config.name})")


def _changed(clean: Any, poisoned: Any) -> bool:
    pairs = paired_leaves(clean, poisoned)
    return pairs is None or any(_leaf_changed(a, b) for a, b in pairs)


def _leaf_changed(clean: Any, poisoned: Any) -> bool:
    if isinstance(clean, torch.Tensor) and isinstance(poisoned, torch.Tensor):
        if clean.shape != poisoned.shape or clean.dtype != poisoned.dtype:
            return True
        # Block by block, stopping at the first change: a used output (the honest case)
        # changes in the first block, so the rest of tens of MB is never swept.
        return any(_block_changed(*blocks) for blocks in paired_blocks(clean, poisoned))
    return clean != poisoned


def _block_changed(clean: torch.Tensor, poisoned: torch.Tensor) -> bool:
    """Any element that differs, NaN in both counting as equal."""
    differs = clean != poisoned
    if clean.is_floating_point():
        differs &= ~(clean.isnan() & poisoned.isnan())
    return bool(differs.any())


def judge_timing_reply(session: Session, config: ShapeConfig, reply: wire.Timed,
                       n_calls: int, spot: list[int], spot_path: str | None,
                       expected_for: Callable[[list[int]], list[Any]]) -> None:
    """A timed batch: integrity, kernels and the policy on every call, and the
    spot-checked calls ``spot`` (their outputs compared with ``expected_for(spot)``, the
    reference's)."""
    if reply.integrity:
        raise reject_worker_findings(reply.integrity)
    if reply.kernel_calls is None or reply.kernel_calls < n_calls:
        raise reject(f"integrity:no_custom_call:timed calls ran no compiled function on {config.name}")
    judge_policy(session, config, reply.ops, reply.torch_work, f"{config.name} (timed)")
    spots = reply.spots
    if not spot or spot_path is None:
        return
    if [reported.index for reported in spots] != spot:  # the parent's pick, not the worker's
        raise reject(f"integrity:malformed_spots on {config.name}")
    judge_structures([reported.structure for reported in spots])
    try:
        outputs = candidate_tensors(session, spot_path, f"{config.name} (timed)")
    except Outcome:
        raise
    except Exception as error:  # the worker said it saved them: an unreadable file is a lie
        raise reject(f"integrity:malformed_spots on {config.name}: "
                     f"{sanitize_candidate_text(str(error), 300)}") from error
    session.discard(spot_path)
    if len(outputs) != len(spot):
        raise reject(f"integrity:malformed_spots on {config.name}")
    expected_outputs = expected_for(spot)
    atol, rtol = session.task.tolerance()
    for expected, output in zip(expected_outputs, outputs, strict=True):
        if not compare_outputs(expected, output, atol, rtol).passed:
            raise reject(f"integrity:timed_output_mismatch:a timed call's output is wrong on "
                         f"{config.name} (behaves differently while timed)")


