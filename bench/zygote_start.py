"""What the zygote saves: starting a check's two workers, and one whole check, both ways.

Every check starts a reference and a candidate worker in the ``process`` sandbox (bwrap).
Exec'd, each imports torch and warms up; forked by a zygote (``kerneltrials.sandbox.
zygote``), each finds both done. This prints, for the two workers started at once as a
check starts them: the wall time until both answered hello and the CPU their jobs used
(from the jobs' cgroups); then the wall time of one whole check (L1/relu's reference
solution, the reference-solution sweep's timing, a build-cache hit) and the CPU the whole
machine used during it (run it on an otherwise idle machine); then one check of a fresh
source with a C++ typo (a build-cache miss: the collect job, whose worker a zygote forks
too, and a compile job that clang and g++ reject). Rounds alternate exec'd and
forked (``KERNELTRIALS_ZYGOTE=0``/``1``), so machine noise hits both alike. The zygote's
own start (once per harness process and environment) is printed apart. Nothing is
asserted.

Usage: python bench/zygote_start.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import kerneltrials  # noqa: E402
from kerneltrials.sandbox import SandboxLimits  # noqa: E402
from kerneltrials.sandbox._process import ProcessSandbox  # noqa: E402
from kerneltrials.sandbox.zygote._client import ZYGOTE_ENV, zygote_for  # noqa: E402
from kerneltrials.verifier import CheckOptions, TimingOptions  # noqa: E402
from kerneltrials.verifier import protocol as wire  # noqa: E402
from kerneltrials.verifier.harness._jobs import WorkerJob  # noqa: E402
from kerneltrials.verifier.harness._openmp import worker_env  # noqa: E402

MODES = {"exec'd": "0", "forked": "1"}
SOLUTION = ROOT / "kerneltrials" / "tasks" / "reference" / "level1" / "relu.py"
SWEEP = TimingOptions(warmup_calls=1, min_calls=1, max_calls=1, max_wall_s=0.1,
                      batch_target_s=0.01)


def start_two_workers(sandbox: ProcessSandbox, directory: Path) -> tuple[float, float]:
    """Wall seconds until a reference and a candidate worker both said hello; their CPU."""
    started = time.perf_counter()
    jobs = [WorkerJob(sandbox, role, directory, [], SandboxLimits(wall_timeout_s=120),
                      extra_env=worker_env("cpu")) for role in ("reference", "candidate")]
    for job in jobs:  # `exit` is answered after hello: both imports are done by then
        job.request(wire.Exit(), 60)
    wall = time.perf_counter() - started
    cpu = 0.0
    for job in jobs:
        info = job.process.wait(timeout_s=30) or job.process.kill()
        cpu += info.cpu_time_s or 0.0
    return wall, cpu


def machine_busy_s() -> float:
    """CPU seconds every process on the machine used so far (/proc/stat, all cores)."""
    with open("/proc/stat") as stat:
        fields = [int(value) for value in stat.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def one_check() -> tuple[float, float]:
    """Wall seconds of one sweep check of relu, and the CPU the whole machine used in it
    (the workers, the zygote and the harness alike; run it on an otherwise idle machine)."""
    busy_before = machine_busy_s()
    started = time.perf_counter()
    options = CheckOptions(timing=SWEEP, compile_baseline=False, seeds=1)
    verdict = kerneltrials.check("L1/relu", SOLUTION.read_text(), backend="cpu",
                                 hidden_seed=20240, compile_baseline=False, options=options)
    wall = time.perf_counter() - started
    busy = machine_busy_s() - busy_before
    if verdict.status != "correct":
        raise SystemExit(f"the check did not pass: {verdict.status} {verdict.reasons}")
    return wall, busy


def one_typo_check() -> float:
    """Wall seconds of one check of a fresh source with a typo: collect, then compile_error."""
    source = SOLUTION.read_text().replace("return", "retrun", 1) + f"\n# {uuid.uuid4().hex}\n"
    started = time.perf_counter()
    verdict = kerneltrials.check("L1/relu", source, backend="cpu", hidden_seed=20240)
    if verdict.status != "compile_error":
        raise SystemExit(f"the typo was not a compile error: {verdict.status} {verdict.reasons}")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    sandbox = ProcessSandbox()
    if sandbox.level != "bwrap" or not sandbox.user.drops:
        raise SystemExit("the zygote needs bwrap and a root harness; nothing to compare here")
    started = time.perf_counter()
    probe = Path(tempfile.mkdtemp(prefix="kt-zygote-bench-"))
    env = {**worker_env("cpu"), "HOME": str(probe)}
    if zygote_for("kerneltrials.verifier.worker", env) is None:
        raise SystemExit("the zygote did not start")
    print(f"zygote start (once per process and environment): {time.perf_counter() - started:.2f} s wall")
    one_check()  # the build cache and the first-use costs of this process, once
    one_typo_check()  # g++'s PCH for the flag set, once
    workers: dict[str, list[tuple[float, float]]] = {mode: [] for mode in MODES}
    typos: dict[str, list[float]] = {mode: [] for mode in MODES}
    checks: dict[str, list[tuple[float, float]]] = {mode: [] for mode in MODES}
    for index in range(args.rounds):
        for mode, value in MODES.items():
            os.environ[ZYGOTE_ENV] = value
            with tempfile.TemporaryDirectory(prefix="kt-zygote-bench-") as directory:
                workers[mode].append(start_two_workers(sandbox, Path(directory)))
            checks[mode].append(one_check())
            typos[mode].append(one_typo_check())
        print(f"round {index + 1}/{args.rounds} done", file=sys.stderr)
    print("| | two workers ready, wall | their jobs' CPU | one check, wall | machine CPU per check "
          "| a fresh typo's check, wall |")
    print("|---|---|---|---|---|---|")
    for mode in MODES:
        print(f"| {mode} | {statistics.median(w for w, _ in workers[mode]):.2f} s "
              f"| {statistics.median(c for _, c in workers[mode]):.2f} s "
              f"| {statistics.median(w for w, _ in checks[mode]):.2f} s "
              f"| {statistics.median(c for _, c in checks[mode]):.2f} s "
              f"| {statistics.median(typos[mode]):.2f} s |")
    exec_wall = statistics.median(w for w, _ in checks["exec'd"])
    forked_wall = statistics.median(w for w, _ in checks["forked"])
    print(f"check wall, exec'd / forked: {exec_wall / forked_wall:.2f}x")


if __name__ == "__main__":
    main()
