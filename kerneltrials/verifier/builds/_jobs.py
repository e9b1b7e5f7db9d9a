"""The build stage's jobs, from the trusted side: collect, check, compile, publish, hand off.

1. A ``collect`` job imports the candidate with ``load_inline`` intercepted and returns
   the requests; the parent checks them field by field (attacker-controlled data) and
   runs the flag allow-list (``_flags``): any forbidden flag is ``rejected`` before any
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
from pathlib import Path
from typing import Any

from kerneltrials.sandbox import Mount, SandboxStartError
from kerneltrials.verifier._build import MAX_REQUESTS, BuildRequest, InvalidRequest
from kerneltrials.verifier._compiler import CompilePlan, CompileRunner, build_with, library_store
from kerneltrials.verifier._flags import forbidden_flags
from kerneltrials.verifier._jobs import ForgedReply, JobDied, WorkerFailed
from kerneltrials.verifier._session import Outcome, Session
from kerneltrials.verifier.verdict import Status

_PASSED_ENV = ("KERNELTRIALS_CXX", "KERNELTRIALS_CUDA_SPLIT", "CUDA_HOME", "TORCH_CUDA_ARCH_LIST")


def validate_requests(reply: dict[str, Any], backend: str) -> list[BuildRequest]:
    """The collect job's requests, checked; raises :class:`Outcome` (``rejected``)."""
    items = reply.get("requests")
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


class CompileJobFailed(Exception):
    """A compile job did not produce its outputs: ``error`` after ``wall_s`` seconds
    (``_stages.compile_failure`` decides whose failure it is)."""

    def __init__(self, error: Exception, wall_s: float) -> None:
        super().__init__(str(error))
        self.error = error
        self.wall_s = wall_s


def collect_requests(session: Session) -> list[BuildRequest]:
    """Run the collect job and return its checked requests; the job's own failures
    (``WorkerFailed``, ``JobDied``, ``ForgedReply``) propagate: they are the candidate's."""
    options = session.options
    try:
        worker = session.start_worker("collect", options.build_timeout_s, options.build_cpu_time_s)
    except SandboxStartError as error:
        raise Outcome(Status.ERROR, f"harness:sandbox:{error}") from error
    try:
        reply = worker.request("collect", options.build_timeout_s,
                               candidate=str(session.candidate_path), backend=options.backend)
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
            reply = worker.request("compile", options.build_timeout_s,
                                   request=plan.request.to_dict(), module_name=plan.module_name,
                                   out_dir=str(out_dir), details=plan.details,
                                   fast=plan.fast.to_dict() if plan.fast else None)
        except (WorkerFailed, JobDied, ForgedReply) as error:
            raise CompileJobFailed(error, time.monotonic() - started) from error
        finally:
            worker.close()
        details = reply.get("details")
        return details if isinstance(details, dict) else {}

    return run


def hand_off(session: Session, items: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """Copy each library into ``artifacts/``, checking the bytes copied against the
    digest record; the items pointing at the copies, or None when one does not match."""
    store = library_store()
    handed = []
    for item in items:
        artifact = dict(item["artifact"])
        name = Path(artifact["library_path"]).name
        copy = session.root / "artifacts" / name
        if not store.copy_verified(artifact["key"], name, copy):
            store.remove(artifact["key"])  # tampered since publication: rebuilt next time
            return None
        handed.append({"request": item["request"], "artifact": {**artifact, "library_path": str(copy)}})
    return handed


def build_artifacts(session: Session) -> list[dict[str, Any]]:
    """Collect, check, compile or find, and publish every extension of the candidate."""
    requests = collect_requests(session)
    check_flags(requests)
    runner = compile_in_job(session)
    return [{"request": request.to_dict(),
             "artifact": build_with(request, runner, session.root).to_dict()}
            for request in requests]
