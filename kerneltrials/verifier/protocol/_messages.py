"""One request and one reply dataclass per worker operation.

The parent sends a request with :func:`request_frame` and reads the reply with
:meth:`Request.read_reply`, which checks every field's type (``_wire``): the parent never
reads a reply by string key. Which worker answers which operation: ``reference`` and
``candidate`` workers (``kerneltrials.verifier.worker``) all but ``collect`` (the collect
job, a ``candidate``-code worker too) and ``compile`` (the compile job,
``kerneltrials.verifier.builds.compile_worker``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from kerneltrials.verifier.protocol._build import BuildArtifact, BuildRequest
from kerneltrials.verifier.protocol._wire import from_wire, to_wire

R = TypeVar("R")


class Request(Generic[R]):
    """A request of operation ``op``; its reply is a ``reply_type``."""

    op: ClassVar[str]
    reply_type: ClassVar[type[Any]]

    def read_reply(self, data: dict[str, Any]) -> R:
        """The typed reply; raises ``MalformedMessage`` when a field has the wrong type."""
        fields = {key: value for key, value in data.items() if key not in ENVELOPE}
        reply: R = from_wire(self.reply_type, fields)
        return reply


#: Fields of every reply frame besides the operation's own (see ``_frames.serve``).
ENVELOPE = frozenset({"ok", "nonce", "worker_ms"})


def request_frame(request: Request[Any]) -> dict[str, Any]:
    return {"op": request.op, **to_wire(request)}


@dataclass(frozen=True)
class Empty:
    """A reply with nothing in it."""


@dataclass(frozen=True)
class Count:
    count: int


@dataclass(frozen=True)
class TaskLoaded:
    threads: int  # the worker's torch thread count after loading


@dataclass(frozen=True)
class LoadTask(Request[TaskLoaded]):
    op: ClassVar[str] = "load_task"
    reply_type: ClassVar[type[Any]] = TaskLoaded
    source: str
    path: str
    task_id: str
    name: str
    backend: str
    threads: int  # both timed sides use this many threads: the parent's usable cores
    signed_inputs: bool = False  # CheckOptions.inputs == "signed" (tasks/_instantiate.py)


@dataclass(frozen=True)
class HandedArtifact:
    """A built library, copied by the parent where the candidate worker may read it."""

    request: BuildRequest
    artifact: BuildArtifact


@dataclass(frozen=True)
class CandidateLoaded:
    integrity: list[str]  # watched state that importing the candidate changed


@dataclass(frozen=True)
class LoadCandidate(Request[CandidateLoaded]):
    op: ClassVar[str] = "load_candidate"
    reply_type: ClassVar[type[Any]] = CandidateLoaded
    candidate: str
    backend: str
    artifacts: list[HandedArtifact]


@dataclass(frozen=True)
class SetupDone:
    weights_copied: bool


@dataclass(frozen=True)
class Setup(Request[SetupDone]):
    op: ClassVar[str] = "setup"
    reply_type: ClassVar[type[Any]] = SetupDone
    config: str
    overrides: dict[str, Any]
    init_seed: int
    pool_seeds: list[int]  # the timing pool's inputs, derived from the run's secret
    #: The seed of the factors that make each timed call's inputs fresh (0: none).
    bank_seed: int = 0
    #: The bank length that serves every configuration of the check (harness/_bank.py),
    #: so it is drawn once; 0: none known, drawn for each configuration as it comes.
    bank_length: int = 0


@dataclass(frozen=True)
class Inputs(Request[Count]):
    op: ClassVar[str] = "inputs"
    reply_type: ClassVar[type[Any]] = Count
    config: str
    seed: int
    path: str


#: The kinds of work a compute-op record weighs (worker/_op_work.py): FLOPs of contractions,
#: and the pointwise work of PyTorch's primitive ops. The mixed policy judges each apart.
WORK_KINDS = ("contraction", "pointwise")


@dataclass(frozen=True)
class ReferenceRan:
    #: The reference's work by kind (worker/_op_work.py): the mixed policy's yardstick;
    #: empty unless the request asked to weigh it.
    work: dict[str, float]


@dataclass(frozen=True)
class Reference(Request[ReferenceRan]):
    op: ClassVar[str] = "reference"
    reply_type: ClassVar[type[Any]] = ReferenceRan
    config: str
    inputs_path: str
    path: str
    #: Weigh the reference's ops (the mixed policy): the first weighing imports dynamo.
    weigh: bool = False


@dataclass(frozen=True)
class PoolReference(Request[Count]):
    op: ClassVar[str] = "pool_reference"
    reply_type: ClassVar[type[Any]] = Count
    config: str
    path: str


#: The range of a timed call's offset into its configuration's factor bank: 2**22 distinct
#: inputs per tensor from the one timing input set, more than the three sets at 2**20
#: offsets of before, so a table of every answer is no smaller (16 MB more bank per dtype).
FRESH_OFFSETS = 1 << 22


@dataclass(frozen=True)
class FreshReference(Request[Count]):
    """The reference's outputs for timed calls the parent checks (pool set and offset
    of each), saved as a list at ``path``: whole, or with ``sample_seed`` only the
    elements ``sample_positions(sample_seed, calls[i], leaf, numel)`` of each output
    tensor (``calls``: each checked call's index in its batch)."""

    op: ClassVar[str] = "fresh_reference"
    reply_type: ClassVar[type[Any]] = Count
    config: str
    pool: list[int]
    offsets: list[int]
    path: str
    calls: list[int] = field(default_factory=list)
    sample_seed: int | None = None


@dataclass(frozen=True)
class Replay:
    index: int  # which compiled call's output was poisoned
    name: str
    poisoned: int  # elements overwritten (0: nothing to poison)


@dataclass(frozen=True)
class RunReport:
    """What the candidate worker observed on a guarded run; the parent judges it."""

    structures: list[Any]  # describe_output per call: checked by the parent's judge
    integrity: list[str]
    kernel_calls: list[int]
    ops: list[str]
    custom_share: float | None
    aliases_input: bool
    replays: list[Replay]
    readdressed: bool
    #: Per kind, the most work PyTorch did in one of the run's calls (worker/_op_work.py).
    torch_work: dict[str, float] = field(default_factory=dict)
    #: With ``Run.keep``: the tensor leaves of what the run keeps alive, per item in the
    #: order of its file: the two outputs, the inputs after the first
    #: call, the re-addressed output when ``readdressed``, then one per replay.
    kept: list[list[Region]] = field(default_factory=list)


@dataclass(frozen=True)
class Run(Request[RunReport]):
    """One input seed's guarded run (``worker/_run.run_op``). Its outputs are saved at
    ``path``; with ``keep`` they stay alive in the worker instead, described in the reply
    (``RunReport.kept``), for the parent to read out of the frozen process, and are saved
    only when a ``SaveKept`` asks."""

    op: ClassVar[str] = "run"
    reply_type: ClassVar[type[Any]] = RunReport
    config: str
    inputs_path: str
    path: str
    replay: bool
    seed: int
    keep: bool = False


@dataclass(frozen=True)
class SaveKept(Request[Count]):
    """Save what the last run kept at ``path``, as a run without ``keep`` saves it (the
    parent could not read it out of the worker: no privilege, or another structure)."""

    op: ClassVar[str] = "save_kept"
    reply_type: ClassVar[type[Any]] = Count
    path: str


@dataclass(frozen=True)
class Spot:
    index: int  # call index in the batch (the parent knows its pool set and offset)
    structure: Any


@dataclass(frozen=True)
class Region:
    """Where one output tensor of a timed call lies in the worker's memory (the worker's
    claim: the parent reads the bytes there itself, with the job frozen)."""

    address: int  # data_ptr(): its first element
    dtype: str  # e.g. "torch.float32"
    shape: list[int]
    strides: list[int]  # in elements
    device: str


@dataclass(frozen=True)
class Timed:
    times_ms: list[float]
    # Candidate only (None from the reference worker):
    integrity: list[str] = field(default_factory=list)
    kernel_calls: int | None = None
    #: The aten compute ops of every call of the batch (each ran with the recorder on).
    ops: list[str] = field(default_factory=list)
    #: Per kind, the most work PyTorch did in one call of the batch.
    torch_work: dict[str, float] = field(default_factory=dict)
    spots: list[Spot] = field(default_factory=list)
    #: With ``Time.keep``: each call's output leaves, kept alive until the next batch.
    outputs: list[list[Region]] = field(default_factory=list)


@dataclass(frozen=True)
class Time(Request[Timed]):
    op: ClassVar[str] = "time"
    reply_type: ClassVar[type[Any]] = Timed
    config: str
    mode: str  # "candidate", "eager" or "compile"
    n_calls: int
    spot: list[int] = field(default_factory=list)
    spot_path: str | None = None
    #: Keep every call's output alive until the next batch (both sides alike) and, on the
    #: candidate, say where each lies: the parent reads the ones it draws (any of them).
    keep: bool = False
    #: Each call's window into the configuration's factor bank, drawn by the parent when
    #: it sends the batch (empty: plain copies of the pool).
    offsets: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class GradDone:
    backward_ops: list[str]


@dataclass(frozen=True)
class Grad(Request[GradDone]):
    op: ClassVar[str] = "grad"
    reply_type: ClassVar[type[Any]] = GradDone
    config: str
    inputs_path: str
    path: str
    seed: int


@dataclass(frozen=True)
class ProfileRow:
    op: str
    calls: int
    self_ms_per_call: float


@dataclass(frozen=True)
class Profiled:
    top_ops: list[ProfileRow]
    calls: int


@dataclass(frozen=True)
class Profile(Request[Profiled]):
    op: ClassVar[str] = "profile"
    reply_type: ClassVar[type[Any]] = Profiled
    config: str
    calls: int = 3
    #: Run the calls inside a CUDA profiler range, without PyTorch's profiler: the worker
    #: runs under Nsight Compute, which measures only inside the range (harness/_nsight.py).
    device_range: bool = False


@dataclass(frozen=True)
class Collected:
    # Each item is checked by the parent with BuildRequest.from_untrusted: a malformed
    # item is the candidate's ``build:invalid_request``, not a forged frame.
    requests: Any


@dataclass(frozen=True)
class Collect(Request[Collected]):
    op: ClassVar[str] = "collect"
    reply_type: ClassVar[type[Any]] = Collected
    candidate: str
    backend: str


@dataclass(frozen=True)
class Compiled:
    details: dict[str, Any]


@dataclass(frozen=True)
class Compile(Request[Compiled]):
    op: ClassVar[str] = "compile"
    reply_type: ClassVar[type[Any]] = Compiled
    request: BuildRequest
    module_name: str
    out_dir: str
    details: dict[str, Any]
    fast: dict[str, Any] | None = None  # the fast path's plan (FastPlan.to_dict)


@dataclass(frozen=True)
class Exit(Request[Empty]):
    op: ClassVar[str] = "exit"
    reply_type: ClassVar[type[Any]] = Empty


#: Every request type by its op (the workers parse requests with it).
REQUESTS: dict[str, type[Request[Any]]] = {cls.op: cls for cls in (
    LoadTask, LoadCandidate, Setup, Inputs, Reference, PoolReference, FreshReference, Run, SaveKept,
    Time, Grad, Profile, Collect, Compile, Exit)}
