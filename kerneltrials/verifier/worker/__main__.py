"""The worker that hosts candidate or reference code: ``python -m
kerneltrials.verifier.worker ROLE``.

Started by the parent inside a sandbox. It answers frames on its private channel
(``kerneltrials.verifier.protocol``); tensors go through files. Roles: ``collect``
imports the candidate to record its builds, ``candidate`` runs it, ``reference`` runs
the task's reference and never imports a candidate, so reference outputs and baseline
timings cannot be touched by candidate Python (docs/design/architecture.md, trust
boundary). Compiling is another job's: ``kerneltrials.verifier.builds.compile_worker``.
"""

from __future__ import annotations

import sys

# Timers, the channel and the handlers are bound before any candidate code runs.
from kerneltrials.verifier.protocol import serve
from kerneltrials.verifier.worker._dispatch import HANDLERS
from kerneltrials.verifier.worker._ops import warm_up
from kerneltrials.verifier.worker._state import WorkerState

ROLES = ("collect", "reference", "candidate")


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    role = args[0] if args else ""
    if role not in ROLES:
        raise SystemExit(f"usage: python -m kerneltrials.verifier.worker {'|'.join(ROLES)}")
    serve(WorkerState(role=role, handlers=HANDLERS), HANDLERS, lambda: warm_up(role))


if __name__ == "__main__":
    main()
