"""Start what a check's workers come from before the check needs them.

A process's first check waits for the process sandbox's zygote to import torch and the
worker (about 2 s of a core here) before its workers can start. A caller that has its own
seconds to spend first (the CLI importing the verifier, which imports torch too) calls
:func:`prestart` before them, so the two imports run on two cores side by side. The zygote
is trusted harness code that never sees a job's input, whenever it starts; this module
imports no torch, so calling it costs milliseconds.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from kerneltrials.verifier.harness._jobs import prestart_workers


def prestart(backend: str = "cpu", sandbox: str = "process") -> None:
    """Begin starting what checks on ``backend`` in ``sandbox`` fork their workers from,
    and return at once; the next check in this process finds it started. Nothing starts
    where the sandbox cannot be made: the check itself then says why."""
    prestart_workers(sandbox, backend, Path(tempfile.gettempdir()))
