"""The worker's side of the shared OpenMP runtime: rest after each timed batch.

The parent starts both timed workers on one preloaded libomp with a bounded spin
(``harness/_openmp.py`` says why); after a batch, a worker waits that spin out so its
pool is asleep while the other side is timed (docs/design/timing.md).
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping

LIBOMP = "libomp.so.5"


def rest_seconds(env: Mapping[str, str]) -> float:
    """How long a worker with ``env`` waits after a batch: its bounded spin, or nothing."""
    blocktime = env.get("KMP_BLOCKTIME", "")
    if not blocktime.isdigit() or LIBOMP not in env.get("LD_PRELOAD", ""):
        return 0.0
    return (int(blocktime) + 1) / 1000


#: Read once, when the worker imports this module, before any candidate code runs.
_REST_S = rest_seconds(os.environ)


def rest_threads() -> None:
    """Let this worker's OpenMP pool fall asleep before the other side is timed."""
    if _REST_S:
        time.sleep(_REST_S)
