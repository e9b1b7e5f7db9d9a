"""The compile job: ``python -m kerneltrials.verifier.builds.compile_worker``.

It answers one ``compile`` request (``kerneltrials.verifier.protocol.Compile``) and
``exit``, with the protocol's frame loop. It never imports a candidate: its only inputs
are the request's text and flags (checked by the parent's flag allow-list) and the
toolchain entries the parent verified and mounted read-only; it writes only under the
request's output directory (``_compile_job``; docs/design/builds.md). It is a separate
entry point from the candidate-hosting worker, so that worker never imports the build
machinery.
"""

from __future__ import annotations

from pathlib import Path

from kerneltrials.verifier import protocol as wire
from kerneltrials.verifier.builds._compile_job import compile_into
from kerneltrials.verifier.builds._fast import FastPlan
from kerneltrials.verifier.protocol import CompileError, CpuTimeExceeded, Handler, WorkerFault


def compile_op(state: object, request: wire.Compile) -> wire.Compiled:
    """Compile the parent's request into ``out_dir`` (no candidate code runs here)."""
    plan = FastPlan(**request.fast) if request.fast else None
    try:
        details = compile_into(request.request, request.module_name, Path(request.out_dir), plan,
                               dict(request.details))
    except CpuTimeExceeded as error:
        raise WorkerFault("cpu_time_limit", str(error)) from error
    except CompileError as error:
        raise WorkerFault("compile_error", str(error), error.log) from error
    return wire.Compiled(details=details)


def exit_op(state: object, request: wire.Exit) -> wire.Empty:
    return wire.Empty()


HANDLERS = {wire.Compile.op: Handler(wire.Compile, compile_op),
            wire.Exit.op: Handler(wire.Exit, exit_op)}


def main() -> None:
    wire.serve(None, HANDLERS, lambda: None)


if __name__ == "__main__":
    main()
