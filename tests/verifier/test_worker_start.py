"""The worker's start-up: the collector is paused while torch loads, and back before hello."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import gc
import kerneltrials.verifier.worker.__main__ as worker
paused = not gc.isenabled()
worker._start({role!r})
print(paused, gc.isenabled(), gc.get_freeze_count())
"""


def _start_state(role: str) -> tuple[bool, bool, int]:
    out = subprocess.run([sys.executable, "-c", PROBE.format(role=role)], capture_output=True,
                         text=True, check=True, timeout=300).stdout.split()
    return out[0] == "True", out[1] == "True", int(out[2])


def test_the_collector_is_paused_for_the_imports_and_running_when_the_worker_is_ready() -> None:
    for role in ("reference", "candidate"):
        paused, running, frozen = _start_state(role)
        assert paused, f"{role}: the collector ran while torch was imported"
        # A candidate's cyclic garbage must still be collected during its requests.
        assert running, f"{role}: the collector is still off when the worker is ready"
        # Everything loaded at start-up is out of the collector's passes.
        assert frozen > 100_000, (role, frozen)
