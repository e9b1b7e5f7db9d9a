"""Per-job overhead of each sandbox next to a bare subprocess, measured in one run.

Each job is ``python -c pass`` (the interpreter start is in every row, so the differences
are the sandbox's own cost): start, wait, collect output, clean up. Rows are measured
interleaved, round by round, so machine noise hits all of them alike.

The "before" row reproduces the sandbox before issue 17 (bwrap as root with capabilities
dropped, the whole of /etc and the checkout's parent bound, the host scratch dir bound,
no user drop, no quota) next to today's bwrap level, in the same run.

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
from kerneltrials.sandbox._view import package_dir

_OLD_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")


class BeforeIssue17Sandbox(ProcessSandbox):
    """The bwrap level as it was: root in the job (capabilities dropped), a broad view."""

    def command_prefix(self, job: JobSpec) -> list[str]:
        command = ["bwrap", "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
                   "--unshare-cgroup-try", "--die-with-parent", "--new-session",
                   "--cap-drop", "ALL", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
        paths = [Path(p) for p in _OLD_SYSTEM_DIRS] + [
            Path(sys.prefix), Path(sys.base_prefix), package_dir().parent]
        for path in dict.fromkeys(p for p in paths if p.exists()):
            if path.is_symlink():
                command += ["--symlink", str(path.readlink()), str(path)]
            else:
                command += ["--ro-bind", str(path), str(path)]
        command += ["--ro-bind", "/sys", "/sys", "--bind", str(job.scratch_dir),
                    str(job.scratch_dir), "--chdir", str(job.scratch_dir), "--"]
        return command

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
    if probe_level("bwrap") is None:
        rows["process (bwrap) BEFORE issue 17"] = sandboxed(BeforeIssue17Sandbox("bwrap"))
    if probe_level("none") is None:
        rows["process (none, no cgroups)"] = sandboxed(
            ProcessSandbox(isolation="none", cgroups=False))
    try:
        from kerneltrials.sandbox._docker import DockerSandbox

        rows["docker"] = sandboxed(DockerSandbox(base_url=docker_host))
    except Exception as error:  # no SDK or no engine: report, keep measuring the rest
        print(f"docker skipped: {error}", file=sys.stderr)
    return rows


def measure(rows: dict[str, Callable[[Path], None]], rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in rows}
    with tempfile.TemporaryDirectory(prefix="kt-bench-") as directory:
        # One scratch dir per row: a sandbox hands its scratch dir to the job's user.
        scratch = {name: Path(directory) / f"row-{index}" for index, name in enumerate(rows)}
        for name, run in rows.items():  # warm-up: page cache, image, probes
            scratch[name].mkdir()
            run(scratch[name])
        for _ in range(rounds):
            for name, run in rows.items():
                started = time.perf_counter()
                run(scratch[name])
                times[name].append(time.perf_counter() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--docker-host", default=None)
    options = parser.parse_args()
    times = measure(candidates(options.docker_host), options.rounds)
    base = statistics.median(times["bare subprocess"])
    print(f"{'backend':34} {'median ms':>10} {'overhead ms':>12} {'ratio':>7}")
    for name, samples in times.items():
        median = statistics.median(samples)
        print(f"{name:34} {median * 1e3:10.1f} {(median - base) * 1e3:12.1f} {median / base:7.2f}")


if __name__ == "__main__":
    main()
