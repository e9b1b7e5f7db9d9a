"""The typed protocol between the trusted parent and its workers, shared by both sides.

Framing and the hello/nonce exchange (``_frames``), one request and one reply dataclass
per operation checked field by field (``_messages``, ``_wire``), the build requests and
artifacts that cross from the collect job to the compile job and the run job
(``_build``), the walker over nested outputs (``_tree``), and the positions of the
output elements a timed call is checked at (``_samples``). Nothing here imports torch
or any trusted-side module: the worker that hosts candidate code imports this package and
nothing else of the verifier (tests/verifier/test_worker_boundary.py).
"""

from __future__ import annotations

from kerneltrials.verifier.protocol._build import (
    MAX_REQUESTS,
    BuildArtifact,
    BuildRequest,
    CompileError,
    CpuTimeExceeded,
    InvalidRequest,
)
from kerneltrials.verifier.protocol._frames import (
    MAX_FRAME_BYTES,
    ChannelClosed,
    ChannelTimeout,
    Failure,
    Handler,
    MalformedFrame,
    WorkerFault,
    exit_now,
    open_channel_from_env,
    parse_request,
    recv_frame,
    recv_hello,
    send_frame,
    send_hello,
    serve,
)
from kerneltrials.verifier.protocol._messages import (
    FRESH_OFFSETS,
    REQUESTS,
    WORK_KINDS,
    CandidateLoaded,
    Collect,
    Collected,
    Compile,
    Compiled,
    Count,
    Empty,
    Exit,
    FreshReference,
    Grad,
    GradDone,
    HandedArtifact,
    Inputs,
    LoadCandidate,
    LoadTask,
    PoolReference,
    Profile,
    Profiled,
    ProfileRow,
    Reference,
    ReferenceRan,
    Region,
    Replay,
    Request,
    Run,
    RunReport,
    SaveKept,
    Setup,
    SetupDone,
    Spot,
    TaskLoaded,
    Time,
    Timed,
    request_frame,
)
from kerneltrials.verifier.protocol._samples import SAMPLED_ELEMENTS, sample_positions
from kerneltrials.verifier.protocol._tree import is_branch, leaves, map_leaves, paired_leaves
from kerneltrials.verifier.protocol._wire import MalformedMessage, from_wire, to_wire

__all__ = [
    "FRESH_OFFSETS", "MAX_FRAME_BYTES", "MAX_REQUESTS", "REQUESTS", "SAMPLED_ELEMENTS", "WORK_KINDS",
    "BuildArtifact",
    "BuildRequest", "CandidateLoaded", "ChannelClosed", "ChannelTimeout", "Collect", "Collected",
    "Compile", "CompileError", "Compiled", "Count", "CpuTimeExceeded", "Empty", "Exit", "Failure",
    "FreshReference", "Grad", "GradDone", "HandedArtifact", "Handler", "Inputs", "InvalidRequest",
    "LoadCandidate", "LoadTask", "MalformedFrame", "MalformedMessage", "PoolReference", "Profile",
    "ProfileRow", "Profiled", "Reference", "ReferenceRan", "Region", "Replay", "Request", "Run",
    "RunReport", "SaveKept", "Setup", "SetupDone", "Spot", "TaskLoaded", "Time", "Timed", "WorkerFault", "exit_now", "from_wire",
    "is_branch", "leaves", "map_leaves", "open_channel_from_env", "paired_leaves", "parse_request",
    "recv_frame", "recv_hello", "request_frame", "sample_positions", "send_frame", "send_hello",
    "serve",
    "to_wire",
]
