"""The worker that hosts candidate or reference code: ``python -m
kerneltrials.verifier.worker ROLE``.

Started by the parent inside a sandbox. It answers frames on its private channel
(``kerneltrials.verifier.protocol``); tensors go through files, except the candidate's
outputs, which the parent reads out of its frozen process where it may. Roles: ``collect``
imports the candidate to record its builds, ``candidate`` runs it, ``reference`` runs
the task's reference and never imports a candidate, so reference outputs and baseline
timings cannot be touched by candidate Python (docs/design/architecture.md, trust
boundary). Compiling is another job's: ``kerneltrials.verifier.builds.compile_worker``.
"""

from __future__ import annotations

import gc
import sys

# Importing torch makes a few hundred thousand long-lived objects, and the collector's
# passes over them during the import found nothing and cost about a quarter of the
# worker's start-up CPU (3.1 -> 2.3 s for `import torch` here). Collection resumes,
# with everything loaded so far frozen out of it, before the worker says it is ready.
gc.disable()

# Timers, the channel and the handlers are bound before any candidate code runs.
from kerneltrials.verifier.protocol import serve  # noqa: E402
from kerneltrials.verifier.worker._dispatch import HANDLERS  # noqa: E402
from kerneltrials.verifier.worker._ops import warm_up  # noqa: E402
from kerneltrials.verifier.worker._state import WorkerState  # noqa: E402

ROLES = ("collect", "reference", "candidate")


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    role = args[0] if args else ""
    if role not in ROLES:
        raise SystemExit(f"usage: python -m kerneltrials.verifier.worker {'|'.join(ROLES)}")
    serve(WorkerState(role=role, handlers=HANDLERS), HANDLERS, lambda: _start(role))


def prefork() -> None:
    """What a zygote runs once before it forks workers (kerneltrials.sandbox.zygote):
    the candidate's warm-up, a superset of the reference's. Each worker still runs its
    own warm-up, which then finds everything loaded."""
    warm_up("candidate")


def _start(role: str) -> None:
    """Warm up with the collector still off, then hand it back for the requests."""
    warm_up(role)
    gc.freeze()
    gc.enable()


if __name__ == "__main__":
    main()
