"""Per-job overhead of each sandbox next to a bare subprocess, measured in one run.

Each job is ``python -c pass`` (the interpreter start is in every row, so the differences
are the sandbox's own cost): start, wait, collect output, clean up. Rows are measured
interleaved, round by round, so machine noise hits all of them alike.

Usage: python bench/sandbox_overhead.py [--rounds 10] [--docker-host unix:///…]
(docker is included when an engine answers: DOCKER_HOST or --docker-host.)
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from kerneltrials.sandbox import JobSpec, Sandbox, SandboxLimits, build_job_env
from kerneltrials.sandbox._namespaces import probe_level
from kerneltrials.sandbox._process import ProcessSandbox

ARGV = [sys.executable, "-c", "pass"]


def bare_subprocess(scratch: Path) -> None:
    subprocess.run(ARGV, cwd=scratch, check=True, capture_output=True)


def sandboxed(sandbox: Sandbox) -> Callable[[Path], None]:
    def run(scratch: Path) -> None:
        job = sandbox.start(
            JobSpec(argv=ARGV, env=build_job_env(), scratch_dir=scratch, limits=SandboxLimits(60))
        )
        info = job.wait()
        assert info is not None and info.returncode == 0, info

    return run


def candidates(docker_host: str | None) -> dict[str, Callable[[Path], None]]:
    rows: dict[str, Callable[[Path], None]] = {"bare subprocess": bare_subprocess}
    for level in ("none", "unshare", "bwrap"):
        if probe_level(level) is None:
            rows[f"process ({level}, cgroups)"] = sandboxed(ProcessSandbox(isolation=level))
    rows["process (none, no cgroups)"] = sandboxed(ProcessSandbox(isolation="none", cgroups=False))
    try:
        from kerneltrials.sandbox._docker import DockerSandbox

        rows["docker"] = sandboxed(DockerSandbox(base_url=docker_host))
    except Exception as error:  # no SDK or no engine: report, keep measuring the rest
        print(f"docker skipped: {error}", file=sys.stderr)
    return rows


def measure(rows: dict[str, Callable[[Path], None]], rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in rows}
    with tempfile.TemporaryDirectory(prefix="kt-bench-") as directory:
        scratch = Path(directory)
        for run in rows.values():  # warm-up: page cache, image, probes
            run(scratch)
        for _ in range(rounds):
            for name, run in rows.items():
                started = time.perf_counter()
                run(scratch)
                times[name].append(time.perf_counter() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--docker-host", default=None)
    options = parser.parse_args()
    times = measure(candidates(options.docker_host), options.rounds)
    base = statistics.median(times["bare subprocess"])
    print(f"{'backend':32} {'median ms':>10} {'overhead ms':>12} {'ratio':>7}")
    for name, samples in times.items():
        median = statistics.median(samples)
        print(f"{name:32} {median * 1e3:10.1f} {(median - base) * 1e3:12.1f} {median / base:7.2f}")


if __name__ == "__main__":
    main()
