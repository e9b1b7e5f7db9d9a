"""What a fresh candidate's build costs inside a check: the case of every new answer in
`eval` and in an RL loop (its library is a cache miss; the PCH and the binding object for
its flags and signature are already in the toolchain store).

The reference ReLU solution with a fresh comment (a new library key, the same signature)
is checked ``--rounds`` times with the sweep's timing; the first, unmeasured, check fills
the toolchain store and starts the zygote. Printed per round: the check's wall time, its
build phase, the compile job's own time (``compile_s``: from the job's start of work to its
library) and the whole machine's CPU during the build phase (run it on an otherwise idle
machine). Then the medians. Nothing is asserted.

    .venv/bin/python bench/fresh_build.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import kerneltrials  # noqa: E402
from bench.zygote_start import machine_busy_s  # noqa: E402
from kerneltrials.verifier import CheckOptions, TimingOptions  # noqa: E402
from kerneltrials.verifier.builds import _jobs  # noqa: E402

SOLUTION = ROOT / "kerneltrials" / "tasks" / "reference" / "level1" / "relu.py"
SWEEP = TimingOptions(warmup_calls=1, min_calls=1, max_calls=1, max_wall_s=0.1,
                      batch_target_s=0.01)


def fresh_source() -> str:
    """The solution with a comment of its own in its C++ text: a new library key."""
    text = SOLUTION.read_text()
    marker = "#include <torch/extension.h>"
    assert marker in text, "the ReLU solution's C++ changed: update this script"
    return text.replace(marker, f"{marker}\n// fresh {uuid.uuid4().hex}", 1)


class BuildRecord:
    """Wraps the build stage's ``build_with``: the compile job's ``compile_s`` and the
    machine's CPU counter when each build is done."""

    def __init__(self) -> None:
        self.compile_s: list[float] = []
        self.busy_at_end: list[float] = []
        original = _jobs.build_with

        def build_with(*args: Any, **kwargs: Any) -> Any:
            artifact = original(*args, **kwargs)
            self.compile_s.append(float(artifact.details.get("compile_s", 0.0)))
            self.busy_at_end.append(machine_busy_s())
            return artifact

        _jobs.build_with = build_with


def one_check(record: BuildRecord) -> tuple[float, float, float, float]:
    """One check's wall seconds, its build phase, the compile job's time, and the machine's
    CPU from the start of the check to the end of the build (the first phase)."""
    busy_before = machine_busy_s()
    started = time.perf_counter()
    options = CheckOptions(timing=SWEEP, compile_baseline=False, seeds=1)
    verdict = kerneltrials.check("L1/relu", fresh_source(), backend="cpu", hidden_seed=20240,
                                 compile_baseline=False, options=options)
    wall = time.perf_counter() - started
    if verdict.status != "correct":
        raise SystemExit(f"the fresh ReLU came out {verdict.status}: {verdict.reasons}")
    return (wall, verdict.durations_s.get("build", 0.0), record.compile_s[-1],
            record.busy_at_end[-1] - busy_before)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="measured checks (default 5)")
    args = parser.parse_args()
    record = BuildRecord()
    one_check(record)  # fills the toolchain store and starts the zygote: not measured
    rows = []
    print("round  check_s  build_s  compile_job_s  build_cpu_s")
    for index in range(args.rounds):
        rows.append(one_check(record))
        print(f"{index + 1:5d}  " + "  ".join(f"{value:{width}.2f}" for value, width in
                                             zip(rows[-1], (7, 7, 13, 11), strict=True)),
              flush=True)
    medians = [statistics.median(column) for column in zip(*rows, strict=True)]
    print("median " + "  ".join(f"{value:{width}.2f}" for value, width in
                                zip(medians, (7, 7, 13, 11), strict=True)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
