"""A timed batch's reply is the candidate's data: the parent's checks of it hold whatever
the worker wrote.

The candidate's native code owns its worker process, so it can make the worker send any
``Timed`` reply that the protocol's types allow. These feed such replies straight to the
parent's judge (``harness/_judge.judge_timing_reply``) and to the output reads
(``harness/_output_reads.wrong_read_calls``), as a forging candidate would deliver them.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

from kerneltrials.tasks import ShapeConfig, load_task
from kerneltrials.verifier import CheckOptions
from kerneltrials.verifier import protocol as wire
from kerneltrials.verifier.harness._judge import judge_timing_reply
from kerneltrials.verifier.harness._output_reads import (
    OutputReads,
    UnreadableOutput,
    wrong_read_calls,
)
from kerneltrials.verifier.harness._session import Outcome, Session
from kerneltrials.verifier.verdict import Status
from kerneltrials.verifier.worker._samples import sampled_output

pytestmark = pytest.mark.timeout(60)

CONFIG = ShapeConfig(name="public-0", kind="public", overrides={})
EXPECTED = [torch.full((4, 3), float(index)) for index in range(4)]  # the reference's, per call
STRUCTURE = {"type": "torch.Tensor", "exact_tensor": True, "device": "cpu",
             "expected_device": "cpu", "layout": "torch.strided"}


@pytest.fixture
def session() -> Session:
    made = Session(task=load_task("L1/relu"), source="", options=CheckOptions(policy="strict"),
                   configs=[CONFIG], hidden_seed=0)
    yield made
    made.close()


def expected_for(indices: list[int]) -> list[object]:
    return [EXPECTED[index] for index in indices]


def spot_file(session: Session, outputs: list[torch.Tensor]) -> str:
    path = session.path("candidate-out", "spot-public-0-0.pt")
    torch.save(outputs, path)
    return path


def timed(spots: list[wire.Spot], **fields: object) -> wire.Timed:
    return wire.Timed(**{"times_ms": [1.0] * 4, "kernel_calls": 4, "spots": spots,  # type: ignore[arg-type]
                         **fields})


def judged(session: Session, reply: wire.Timed, spot: list[int], path: str | None) -> Outcome:
    with pytest.raises(Outcome) as raised:
        judge_timing_reply(session, CONFIG, reply, 4, spot, path, expected_for)
    assert raised.value.status == Status.REJECTED
    return raised.value


def test_a_spot_at_another_call_than_the_parents_pick_is_rejected(session: Session) -> None:
    # The parent picked call 2; the worker reports (and saved) call 0, an honest one.
    path = spot_file(session, [EXPECTED[0]])
    reply = timed([wire.Spot(index=0, structure=STRUCTURE)])
    outcome = judged(session, reply, [2], path)
    assert outcome.reasons == ["integrity:malformed_spots on public-0"]


def test_a_spot_file_holding_fewer_outputs_than_spots_is_rejected(session: Session) -> None:
    path = spot_file(session, [])
    reply = timed([wire.Spot(index=2, structure=STRUCTURE)])
    outcome = judged(session, reply, [2], path)
    assert outcome.reasons == ["integrity:malformed_spots on public-0"]


def test_a_spot_whose_saved_output_is_wrong_is_rejected(session: Session) -> None:
    path = spot_file(session, [EXPECTED[1]])  # call 1's answer saved for call 2
    reply = timed([wire.Spot(index=2, structure=STRUCTURE)])
    outcome = judged(session, reply, [2], path)
    assert outcome.reasons[0].startswith("integrity:timed_output_mismatch:")


def test_a_spot_claiming_a_subclass_or_no_compiled_call_is_rejected(session: Session) -> None:
    path = spot_file(session, [EXPECTED[2]])
    subclass = {**STRUCTURE, "type": "mine.FakeTensor", "exact_tensor": False}
    outcome = judged(session, timed([wire.Spot(index=2, structure=subclass)]), [2], path)
    assert outcome.reasons[0].startswith("integrity:output_not_plain_tensor:")
    honest = [wire.Spot(index=2, structure=STRUCTURE)]
    outcome = judged(session, timed(honest, kernel_calls=3), [2], spot_file(session, [EXPECTED[2]]))
    assert outcome.reasons[0].startswith("integrity:no_custom_call:")


def test_compute_in_any_timed_batch_is_judged_not_only_in_spot_checked_ones(
        session: Session) -> None:
    # Every call runs with the recorder on and every batch reports its ops: a batch with
    # no spot-checked call is judged by the policy too.
    outcome = judged(session, timed([], ops=["aten.relu"]), [], None)
    assert outcome.reasons[0].startswith("policy:torch_compute:aten.relu"), outcome.reasons
    judge_timing_reply(session, CONFIG, timed([]), 4, [], None, expected_for)  # none ran


def test_the_same_reply_with_the_parents_pick_and_the_right_output_passes(
        session: Session) -> None:
    path = spot_file(session, [EXPECTED[2]])
    judge_timing_reply(session, CONFIG, timed([wire.Spot(index=2, structure=STRUCTURE)]),
                       4, [2], path, expected_for)
    assert not Path(path).exists()  # read once, then discarded


def sampled_for(indices: list[int]) -> list[list[dict[str, object]]]:
    return [sampled_output(output, 0, index)
            for index, output in zip(indices, expected_for(indices), strict=True)]


def test_output_descriptions_that_do_not_match_the_batch_are_unreadable() -> None:
    reads = OutputReads(worker=None)  # type: ignore[arg-type]  # no read reaches the worker
    short = timed([], outputs=[[]] * 3)  # three descriptions for four calls
    with pytest.raises(UnreadableOutput, match="3 output descriptions for 4 calls"):
        wrong_read_calls(reads, short, [1], sampled_for, (1e-5, 1e-5), seed=0)
    region = wire.Region(address=4096, dtype="torch.float32", shape=[4, 3], strides=[3, 1],
                         device="cuda")
    two = timed([], outputs=[[region, region]] * 4)  # two tensors where the reference has one
    with pytest.raises(UnreadableOutput, match="described 2 output tensors, the reference's has 1"):
        wrong_read_calls(reads, two, [1], sampled_for, (1e-5, 1e-5), seed=0)
    on_gpu = timed([], outputs=[[region]] * 4)
    reads.pid = 1  # never used: the claim is refused before any read
    with pytest.raises(UnreadableOutput, match="said to be on 'cuda'"):
        wrong_read_calls(reads, on_gpu, [1], sampled_for, (1e-5, 1e-5), seed=0)


@pytest.fixture
def mixed_session() -> Session:
    made = Session(task=load_task("L1/relu"), source="", options=CheckOptions(policy="mixed"),
                   configs=[CONFIG], hidden_seed=0)
    made.reference_work[CONFIG.name] = {"contraction": 0.0, "pointwise": 1000.0}
    yield made
    made.close()


def test_a_timed_batch_in_which_pytorch_did_the_work_is_a_passthrough(
        mixed_session: Session) -> None:
    # correctness saw an honest candidate; this batch's calls left the work to PyTorch
    reply = timed([], ops=["aten.relu"], torch_work={"pointwise": 900.0})
    outcome = judged(mixed_session, reply, [], None)
    assert outcome.reasons[0].startswith("policy:passthrough:")
    assert "public-0 (timed)" in outcome.reasons[0] and "pointwise 10%" in outcome.reasons[0]
    judge_timing_reply(mixed_session, CONFIG, timed([], torch_work={"pointwise": 700.0}), 4,
                       [], None, expected_for)  # 30% of its own: accepted


@pytest.mark.parametrize("work", [-1.0, float("nan")])
def test_a_forged_work_record_is_rejected(mixed_session: Session, work: float) -> None:
    reply = timed([], ops=["aten.relu"], torch_work={"pointwise": work})
    outcome = judged(mixed_session, reply, [], None)
    assert outcome.reasons[0].startswith("integrity:malformed_work_record:")


def test_a_flood_of_integrity_findings_is_kept_short(session: Session) -> None:
    # The worker's findings are its text: a forged reply could carry megabytes of them
    # into the verdict, the store and the next prompt.
    reply = timed([], integrity=["integrity:" + "A" * 100_000] * 50)
    outcome = judged(session, reply, [], None)
    assert len(outcome.reasons) == 10 and all(len(r) <= 300 for r in outcome.reasons)


def test_a_spot_file_swapped_for_a_named_pipe_is_rejected_without_waiting(
        session: Session) -> None:
    path = session.path("candidate-out", "spot-public-0-0.pt")
    os.mkfifo(path)  # what a helper thread of the candidate's puts there after the save
    outcome = judged(session, timed([wire.Spot(index=2, structure=STRUCTURE)]), [2], path)
    assert outcome.reasons[0].startswith("integrity:tampered_output_file:public-0 (timed)")
    assert "a named pipe" in outcome.reasons[0]
