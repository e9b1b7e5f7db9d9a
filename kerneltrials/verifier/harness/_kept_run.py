"""A guarded run's tensors read out of the frozen candidate worker instead of a file.

The correctness stage's run (``worker/_run.run_op``) makes the outputs of its calls, the
inputs as the first call left them, the re-addressed output and the poisoned replays'
outputs. With ``Run.keep`` the worker keeps them alive and says where each tensor lies
(``RunReport.kept``). The parent reads the whole tensors out of the process itself
(``process_vm_readv``, ``OutputReads.read_whole``), with the job frozen from its reply on.
Before this, the worker wrote them with ``torch.save`` and the parent loaded the file: 250 MB
per run on softmax's 12.5M-element configurations, at about 1 GB/s each way.

Nothing is trusted that was not before. A file the job wrote held whatever its code
chose, and so does its memory. The parent reads only what it expects: the structure,
shapes and dtypes of the reference's output and of the inputs. Anything else, or a harness
without the privilege to read, goes the old way: the worker saves what it kept
(``SaveKept``) and the parent loads that file. So the verdict is the one the file would
have given. The tensors read live in buffers the next run's reads reuse, so a run's are
judged before the next run is read. A read that hangs (memory only the job's own frozen
threads could serve) is stopped by the watchdog that guards the timed reads.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import torch

from kerneltrials.verifier import protocol as wire
from kerneltrials.verifier.harness._output_reads import (
    OutputReads,
    UnreadableOutput,
    read_watchdog,
)
from kerneltrials.verifier.harness._session import Outcome
from kerneltrials.verifier.protocol import leaves, map_leaves, paired_leaves
from kerneltrials.verifier.verdict import Status


def read_kept_run(reads: OutputReads, reply: wire.RunReport, expected: Any,
                  inputs: list[Any]) -> dict[str, Any] | None:
    """What the run's file would hold (``outputs``, ``inputs_after``, ``readdressed``,
    ``replays``), read out of the frozen worker; None when it is not the structure the
    reference's output (``expected``) and the ``inputs`` have, or cannot be read here:
    then the caller asks for the file.

    Raises:
        Outcome: ``rejected`` when the reads hung until the watchdog killed the job.
    """
    calls = 2 + int(reply.readdressed) + len(reply.replays)
    wanted = leaves(expected) + leaves(inputs)
    if (reads.unavailable or len(reply.kept) != calls + 1 or len(reply.structures) != calls
            or not all(isinstance(leaf, torch.Tensor) for leaf in wanted)
            or any(paired_leaves(expected, structure) is None for structure in reply.structures)):
        return None
    templates = [expected, expected, inputs] + [expected] * (calls - 2)
    reads.new_run()  # the previous run's tensors were judged and are gone
    with read_watchdog(reads.worker, "its run's outputs") as fired:
        try:
            items = [_rebuilt(reads, template, regions)
                     for template, regions in zip(templates, reply.kept, strict=True)]
        except UnreadableOutput:
            items = None
    if fired.is_set():
        raise Outcome(Status.REJECTED, "integrity:run_output_unreadable: reading its "
                      "correctness run's outputs hung until the watchdog killed the job")
    if items is None:
        return None
    reads.runs_read += 1
    rest = items[3:]
    readdressed = rest.pop(0) if reply.readdressed else None
    return {"outputs": items[:2], "inputs_after": items[2], "readdressed": readdressed,
            "replays": rest}


def _rebuilt(reads: OutputReads, template: Any, regions: list[wire.Region]) -> Any:
    """``template`` (a trusted tree of tensors) with each leaf replaced, depth first, by
    the tensor read at the region in the same place."""
    if len(regions) != len(leaves(template)):
        raise UnreadableOutput("another number of tensors")
    read: Iterator[torch.Tensor] = iter([reads.read_whole(region, like) for region, like in
                                         zip(regions, leaves(template), strict=True)])
    return map_leaves(template, lambda _: next(read))
