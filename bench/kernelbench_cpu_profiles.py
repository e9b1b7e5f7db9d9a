"""How many of KernelBench's problem files get a working cpu profile on this machine.

For every ``level*/*.py`` under DIR (a KernelBench checkout's ``KernelBench/`` folder),
the script loads the file as a task and derives its ``cpu`` profile
(``kerneltrials/tasks/_cpu_profile.py``: sizes scaled until the eager reference runs in
2-25 ms here), measuring afresh (a private cache), then prints one line per file and the
counts per level:

- ``derived``: scaled sizes that ran inside the 1-50 ms band when chosen;
- ``own``: the file's own sizes already run under the band's top (kept);
- ``slow``: no size found inside the band (the fastest one tried is kept);
- ``unscaled``: no size constant, a reference that cannot run on the meta device, or data
  or FLOPs too large at any scale (the file's own sizes are kept);
- ``error``: the file does not load or its reference fails (e.g. a package it imports is
  missing: ``pip install 'kerneltrials[kernelbench]'``).

Nothing is asserted. Runs the files' references in this process, as ``tasks validate``.

    .venv/bin/python bench/kernelbench_cpu_profiles.py DIR [--level 1] [--limit N]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def classify(path: Path) -> tuple[str, str]:
    """(outcome, detail) of one file's derivation."""
    from kerneltrials.tasks import TaskError, load_task
    from kerneltrials.tasks._cpu_profile import BAND_MS, derive_cpu_profile

    try:
        chosen = derive_cpu_profile(load_task(path))
    except TaskError as error:
        return "error", error.cause[:120]
    except Exception as error:  # noqa: BLE001 - a reference may raise anything
        return "error", f"{type(error).__name__}: {str(error)[:120]}"
    if chosen.eager_ms is None:
        return "unscaled", "no size constant, not runnable on meta, or too large"
    sizes = " ".join(f"{k}={v}" for k, v in sorted(chosen.config.items()))
    detail = f"{chosen.eager_ms:.1f} ms x{chosen.scale:.3g} {sizes}".strip()
    if not chosen.derived:
        return "own", detail
    return ("derived" if BAND_MS[0] <= chosen.eager_ms <= BAND_MS[1] else "slow"), detail


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path, help="KernelBench's KernelBench/ folder")
    parser.add_argument("--level", type=int, action="append", help="only these levels")
    parser.add_argument("--limit", type=int, default=None, help="files per level at most")
    args = parser.parse_args()
    os.environ["KERNELTRIALS_CACHE"] = tempfile.mkdtemp(prefix="kt-kb-profiles-")
    counts: dict[str, Counter[str]] = {}
    started = time.perf_counter()
    for level_dir in sorted(args.directory.glob("level*")):
        level = level_dir.name.removeprefix("level")
        if args.level and int(level) not in args.level:
            continue
        files = sorted(level_dir.glob("*.py"), key=lambda p: (len(p.name), p.name))
        for path in files[:args.limit]:
            outcome, detail = classify(path)
            counts.setdefault(level, Counter())[outcome] += 1
            print(f"L{level} {path.name:60.60} {outcome:9} {detail}", flush=True)
    print(f"\n{'level':6} {'files':>5} {'derived':>8} {'own':>5} {'slow':>5} {'unscaled':>9} "
          f"{'error':>6}   ({time.perf_counter() - started:.0f} s)")
    total: Counter[str] = Counter()
    for level, counted in sorted(counts.items()):
        total.update(counted)
        print(f"L{level:5} {sum(counted.values()):5} {counted['derived']:8} {counted['own']:5} "
              f"{counted['slow']:5} {counted['unscaled']:9} {counted['error']:6}")
    print(f"{'all':6} {sum(total.values()):5} {total['derived']:8} {total['own']:5} "
          f"{total['slow']:5} {total['unscaled']:9} {total['error']:6}")


if __name__ == "__main__":
    main()
