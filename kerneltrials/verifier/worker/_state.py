"""What a worker keeps between requests, and the helpers every operation shares."""

from __future__ import annotations

import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import torch

from kerneltrials.tasks import TaskSpec
from kerneltrials.verifier.worker._fresh import ScaleBank
from kerneltrials.verifier.worker._guards import KernelTracker
from kerneltrials.verifier.worker._integrity import ThreadWatch
from kerneltrials.verifier.worker._timing import DeviceOps


@dataclass
class ConfigState:
    module: Any
    model: torch.nn.Module
    pool: list[list[Any]]
    bank: ScaleBank | None = None  # each timed call's factors (``_fresh``)
    compiled: Any = None


@dataclass
class WorkerState:
    role: str
    #: The handler table this worker serves (watched by the integrity snapshot).
    handlers: Mapping[str, Any] = field(default_factory=dict)
    task: TaskSpec | None = None
    device: str = "cpu"
    signed_inputs: bool = False  # LoadTask.signed_inputs: every make_inputs of this worker
    candidate: Any = None
    configs: dict[str, ConfigState] = field(default_factory=dict)
    ops: DeviceOps | None = None
    tracker: KernelTracker | None = None  # calls into the candidate's extensions
    integrity: dict[str, Any] = field(default_factory=dict)  # snapshot before import
    threads: ThreadWatch | None = None
    output_bytes: int = 0  # size of the last output: the freed block to poison
    bank: ScaleBank | None = None  # the fresh-input factors, shared by the configurations
    #: The last timed batch's outputs (``Time.keep``): alive while the parent reads them.
    kept_outputs: dict[int, Any] | None = None
    #: The last guarded run's tensors (``Run.keep``), as its file would hold them.
    kept_run: dict[str, Any] | None = None


def format_exc() -> str:
    return traceback.format_exc(limit=12)


def load_inputs(state: WorkerState, path: str, mapped: bool = False) -> list[Any]:
    """One input seed's inputs, written by the reference worker. ``mapped``: the file's
    pages, copy-on-write, rather than a copy read in (a quarter second per 256 MB here),
    for the reference's own run only: candidate code must get heap tensors, as in every
    other call (a mapped one would tell it this call is a correctness run), and the
    candidate's run reads its inputs in (``_run.run_op`` says why)."""
    loaded = torch.load(path, weights_only=True, mmap=mapped)
    return [x.to(state.device) if isinstance(x, torch.Tensor) else x for x in loaded]
