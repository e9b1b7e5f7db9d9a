"""The build stage's jobs, from the trusted side: collect, check, compile, publish, hand off.

1. A ``collect`` job imports the candidate with ``load_inline`` intercepted and returns
   the requests; the parent checks them field by field (attacker-controlled data) and
   runs the flag allow-list (``static/_flags``): any forbidden flag is ``rejected`` before any
   compile job starts.
2. For each request the parent computes the keys and looks them up (``_compiler``); on a
   miss a ``compile`` job (no candidate code, no cache writable) compiles it into a
   private output directory, and the parent publishes the outputs with their digests.
3. The libraries a run job loads are copied by the parent into the session's
   ``artifacts/`` directory, hashing the bytes copied against the digest record.

Job failures propagate to ``_stages.build_stage``, which maps them to verdicts.
See docs/design/builds.md.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kerneltrials.sandbox import Mount, SandboxStartError
from kerneltrials.verifier import protocol as wire
from kerneltrials.verifier.builds._artifact import BuiltArtifact
from kerneltrials.verifier.builds._compiler import (
    CompilePlan,
    CompileRunFailed,
    CompileRunner,
    build_with,
    library_store,
)
from kerneltrials.verifier.harness._jobs import ForgedReply, JobDied, WorkerFailed
from kerneltrials.verifier.harness._session import Outcome, Session
from kerneltrials.verifier.protocol import (
    MAX_REQUESTS,
    BuildArtifact,
    BuildRequest,
    HandedArtifact,
    InvalidRequest,
)
from kerneltrials.verifier.static._flags import forbidden_flags
from kerneltrials.verifier.verdict import Status

_PASSED_ENV = ("KERNELTRIALS_CXX", "KERNELTRIALS_CUDA_SPLIT", "CUDA_HOME", "TORCH_CUDA_ARCH_LIST")


def library_digest(artifact: BuildArtifact) -> str | None:
    """The sha256 the cache's record holds for ``artifact``'s library, or None."""
    info = (library_store().recorded(artifact.key) or {}).get(Path(artifact.library_path).name)
    digest = info.get("sha256") if isinstance(info, dict) else None
    return digest if isinstance(digest, str) else None


def describe_build(details: Mapping[str, Any], cache_hit: bool = False) -> str:
    """How a library was built, from its build details: ``cached``, ``stock``, ``fast``,
    or for CUDA ``fast+split`` / ``fast+whole (why the split was not taken)``
    (docs/design/builds.md)."""
    if cache_hit or "path" not in details:
        return "cached"
    units, _, why = str(details.get("cuda_units", "")).partition(": ")
    return str(details["path"]) + (f"+{units}" if units else "") + (f" ({why})" if why else "")


def validate_requests(reply: wire.Collected, backend: str) -> list[BuildRequest]:
    """The collect job's requests, checked; raises :class:`Outcome` (``rejected``)."""
    items = reply.requests
    if not isinstance(items, list) or len(items) > MAX_REQUESTS:
        raise Outcome(Status.REJECTED, f"build:invalid_request:not a list of at most "
                                       f"{MAX_REQUESTS} load_inline requests")
    if not items:
        raise Outcome(Status.REJECTED, "static:no_custom_kernel:importing the candidate built "
                                       "no extension (load_inline)")
    try:
        return [BuildRequest.from_untrusted(item, backend) for item in items]
    except InvalidRequest as error:
        raise Outcome(Status.REJECTED, f"build:invalid_request:{error}") from error


def check_flags(requests: list[BuildRequest]) -> None:
    """The flag allow-list over every request; raises ``rejected`` naming each flag."""
    reasons = [reason for request in requests for reason in forbidden_flags(request)]
    if reasons:
        raise Outcome(Status.REJECTED, *reasons)


class CompileJobFailed(CompileRunFailed):
    """A compile job did not produce its outputs: ``error`` after ``wall_s`` seconds
    (``_stages.compile_failure`` decides whose failure it is)."""

    def __init__(self, error: Exception, wall_s: float) -> None:
        super().__init__(str(error))
        self.error = error
        self.wall_s = wall_s
        self.ended = isinstance(error, WorkerFailed) and error.kind == "compile_error"


def collect_requests(session: Session) -> list[BuildRequest]:
    """Run the collect job and return its checked requests; the job's own failures
    (``WorkerFailed``, ``JobDied``, ``ForgedReply``) propagate: they are the candidate's."""
    options = session.options
    try:
        worker = session.start_worker("collect", options.build_timeout_s, options.build_cpu_time_s)
    except SandboxStartError as error:
        raise Outcome(Status.ERROR, f"harness:sandbox:{error}") from error
    try:
        reply = worker.request(wire.Collect(candidate=str(session.candidate_path),
                                            backend=options.backend), options.build_timeout_s)
    finally:
        worker.close()
    return validate_requests(reply, options.backend)


def compile_in_job(session: Session) -> CompileRunner:
    """A runner for :func:`build_with` that compiles each plan in its own compile job."""
    options = session.options

    def run(plan: CompilePlan, out_dir: Path) -> dict[str, Any]:
        mounts = [Mount(out_dir, writable=True)] + [Mount(path) for path in plan.mounts]
        env = {name: os.environ[name] for name in _PASSED_ENV if name in os.environ}
        try:
            worker = session.start_worker("compile", options.build_timeout_s,
                                          options.build_cpu_time_s, mounts, env)
        except SandboxStartError as error:
            raise Outcome(Status.ERROR, f"harness:sandbox:{error}") from error
        started = time.monotonic()
        try:
            reply = worker.request(wire.Compile(
                request=plan.request, module_name=plan.module_name, out_dir=str(out_dir),
                details=plan.details, fast=plan.fast.to_dict() if plan.fast else None),
                options.build_timeout_s)
        except (WorkerFailed, JobDied, ForgedReply) as error:
            raise CompileJobFailed(error, time.monotonic() - started) from error
        finally:
            worker.close()
        return reply.details

    return run


def hand_off(session: Session, items: list[BuiltArtifact]) -> list[HandedArtifact] | None:
    """Copy each library into ``artifacts/``, checking the bytes copied against the
    digest record (which must hold the digest the build stage recorded); the artifacts
    pointing at the copies, or None when one does not match."""
    store = library_store()
    handed = []
    for item in items:
        copy = session.root / "artifacts" / item.library_name
        if (library_digest(item.artifact) != item.sha256
                or not store.copy_verified(item.artifact.key, item.library_name, copy)):
            store.remove(item.artifact.key)  # tampered since publication: rebuilt next time
            return None
        artifact = BuildArtifact.from_dict({**item.artifact.to_dict(), "library_path": str(copy)})
        handed.append(HandedArtifact(request=item.request, artifact=artifact))
    return handed


def build_artifacts(session: Session) -> list[BuiltArtifact]:
    """Collect, check, compile or find, and publish every extension of the candidate."""
    requests = collect_requests(session)
    check_flags(requests)
    runner = compile_in_job(session)
    built = []
    for request in requests:
        artifact = build_with(request, runner, session.root)
        digest = library_digest(artifact)
        if digest is None:
            raise Outcome(Status.ERROR, "harness:build_cache:a library vanished after its "
                                        "publication")
        built.append(BuiltArtifact(request, artifact, digest))
    return built
