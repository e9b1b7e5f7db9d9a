"""One OpenMP runtime in both timed workers on the cpu backend, resting between batches.

torch's wheel parallelises with its own libgomp; the fast build path compiles OpenMP
candidates with clang, which links LLVM's libomp. Left alone, a candidate process holds
two thread pools that spin against each other on the same cores, and the reference
worker (libgomp only) is timed under other conditions than the candidate. libomp also
implements libgomp's ABI, so preloading it into every worker gives torch and the
candidate one pool, in the reference worker as much as in the candidate's
(docs/design/timing.md has the measurements).

A pool's threads keep spinning after a parallel region (libomp: 200 ms), long enough to
steal the cores while the parent times the other side next. The workers bound that spin
(``KMP_BLOCKTIME``) and wait it out at the end of each batch, so the side not being timed
is asleep (``worker/_openmp.py``); the flush before each timed call wakes the pool again
outside the timer.
"""

from __future__ import annotations

import functools
import os
import subprocess

from kerneltrials.verifier.builds._fast import find_fast_cxx
from kerneltrials.verifier.worker._openmp import LIBOMP

#: ``native`` keeps every process on the runtime it links (torch: libgomp).
OPENMP_ENV = "KERNELTRIALS_OPENMP"
#: How long an idle libomp thread spins before it sleeps. Longer than the gaps between the
#: parallel regions of one timed call on this kind of machine, short against a batch.
BLOCKTIME_MS = 5


@functools.cache
def preloaded_openmp(backend: str) -> str | None:
    """The libomp every worker preloads on ``backend``, or None (runtime as linked)."""
    if backend != "cpu" or os.environ.get(OPENMP_ENV, "").strip() == "native":
        return None
    cxx = find_fast_cxx()
    if cxx is None:  # stock builds use g++ and libgomp, torch's own runtime
        return None
    try:
        found = subprocess.run([cxx, f"-print-file-name={LIBOMP}"], capture_output=True,
                               text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return found if os.path.isabs(found) and os.path.exists(found) else None


def openmp_label(backend: str) -> str:
    """What the hardware fingerprint records: the preloaded runtime, or ``native``."""
    return preloaded_openmp(backend) or "native"


def worker_env(backend: str) -> dict[str, str]:
    """Environment a worker starts with so that it runs on the chosen runtime."""
    library = preloaded_openmp(backend)
    return {"LD_PRELOAD": library, "KMP_BLOCKTIME": str(BLOCKTIME_MS)} if library else {}
