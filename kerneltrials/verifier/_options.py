"""Options of one verification (docs/design/timing.md explains the timing defaults)."""

from __future__ import annotations

from dataclasses import dataclass, field

from kerneltrials.backends import resolve_backend
from kerneltrials.sandbox import SandboxLimits


@dataclass(frozen=True)
class TimingOptions:
    """How long and how carefully to time each side of each configuration."""

    warmup_calls: int = 3  # untimed calls per side before measuring (compile happens here)
    target_rse: float = 0.01  # stop once the median's relative standard error is below this
    max_measure_s: float = 2.0  # ... or once this much time was measured for a side
    max_wall_s: float = 8.0  # ... or once this much wall time went into a side (flushes)
    min_calls: int = 5  # never fewer timed calls per side
    max_calls: int = 400  # never more
    batch_target_s: float = 0.05  # measured time per request; the order is shuffled per round
    # Stop a configuration early once the speedup's 95% interval over each baseline holds
    # no fast_p threshold and is at most this wide (log half-width, 0.1 ~ +-10%): a
    # candidate far from every threshold needs fewer calls than one near one
    # (docs/design/timing.md, "When timing stops"). None: always to target_rse or a budget.
    decided_half_width: float | None = 0.1


#: What ``CheckOptions.inputs`` may say.
INPUT_MODES = ("file", "signed")


#: Fast, noisy settings for tests and smoke runs.
QUICK_TIMING = TimingOptions(warmup_calls=1, target_rse=0.05, max_measure_s=0.15, max_wall_s=1.0,
                             min_calls=3, max_calls=20, batch_target_s=0.03)


@dataclass(frozen=True)
class CheckOptions:
    """Everything that decides how a candidate is verified."""

    backend: str = "cpu"  # "cpu" or "cuda"
    profile: str | None = None  # shape profile; default follows the backend
    policy: str | None = None  # "strict" / "mixed"; default follows the task's level
    sandbox: str = "process"
    hidden_seed: int | None = None  # None draws a fresh seed (recorded in the verdict)
    seeds: int = 2  # input seeds per configuration
    compile_baseline: bool = True  # also time torch.compile (mode "default")
    timing: TimingOptions = field(default_factory=TimingOptions)
    build_timeout_s: float = 600.0  # wall clock of each build job (collect, compile)
    # CPU seconds per process of a build job (RLIMIT_CPU): a compiler that runs past it is
    # the candidate's timeout. Below the wall clock, so it binds first on an idle machine;
    # a job whose wall clock ran out first, on a loaded machine, is the machine's fault.
    build_cpu_time_s: int = 300
    # The candidate job's whole life: it also waits while the reference side works (e.g.
    # torch.compile's first calls), so a hang is caught by call_timeout_s, not by this.
    run_timeout_s: float = 3600.0
    call_timeout_s: float = 60.0  # one request to a worker (a few calls)
    memory_bytes: int = 8 * 1024**3
    max_processes: int = 256  # threads count too (OpenMP, torch)
    # RLIMIT_FSIZE of every job. The workers save each checked call's outputs and inputs in
    # one file: on a full-size GPU configuration that passes 2 GiB, and a limit the harness
    # set too low must not read as the candidate's runtime error. None: 2 GiB on the cpu
    # backend, 32 GiB on cuda.
    max_file_bytes: int | None = None
    # Freeze the candidate's job between requests, so none of its code runs while the
    # harness prepares, reads or times anything else (docs/design/timing.md). Off only to
    # measure what it costs.
    freeze_at_rest: bool = True
    # Keep every timed call's output and read the drawn ones out of the frozen candidate
    # (harness/_output_reads.py): any timed call may be checked. The correctness runs'
    # tensors are read out of the frozen worker the same way, not from files its worker
    # saves (harness/_kept_run.py). Needs the privilege to read another process's memory;
    # without it the verdict says so and both go through files.
    read_timed_outputs: bool = True
    # Give every timed call inputs no other call saw: its pool set scaled element-wise by
    # factors the parent draws per call (worker/_fresh.py), checked against the reference
    # worker's output for the same call. Off only to show what it stops.
    fresh_inputs: bool = True
    # "file": the inputs the task's get_inputs draws. "signed": besides, every floating
    # input that get_inputs drew all >= 0 (KernelBench's torch.rand) gets each element's
    # sign drawn at random, so a kernel that mishandles negative values is caught; only
    # for tasks defined on negative values too (not sqrt or log of an input).
    inputs: str = "file"
    # Time each baseline (eager, torch.compile) of a configuration once per run (hidden
    # seed) and machine, and give every later candidate the same one (harness/_baselines):
    # one well-measured denominator for all of them, and no baseline re-timed per check.
    # Off: every check times its own baselines beside the candidate, as before.
    reuse_baselines: bool = True
    suspicious_speedup: float = 10.0  # a speedup over eager above this is flagged
    peak_bytes_per_s: float | None = None  # speed of light; None: the backend's default
    peak_flops: float | None = None
    llm_verifier: str | None = None  # "PROVIDER:MODEL": an advisory LLM review (off by default)
    profile_feedback: bool = False  # profile a correct candidate for agent feedback (never scored)
    # The source scans for escape hatches (files, processes, sockets, foreign code) are
    # defence in depth: the sandbox must hold without them. Only the sandbox's own tests
    # turn them off, to show that it does; a candidate cannot (options are the harness's).
    source_scans: bool = True
    # The link policy (builds/_symbols.py): the candidate's own objects, its CUDA units'
    # host code included, import only the allow-list (docs/design/anticheat.md, "The link
    # policy"). None: on, on every backend; True or False forces it (False: only the
    # tests that show another mechanism alone).
    link_policy: bool | None = None
    # The candidate's output directory on a tmpfs of its own size (output_quota_bytes),
    # so its job cannot take the shared disk (docs/design/sandbox.md, "Disk"). Its pages
    # count against the job's memory limit, unlike page cache they cannot be reclaimed:
    # None is on for the cpu backend, off on cuda, where a full-size configuration's
    # run file passes 2 GiB beside its host copies (until a GPU run shows they fit).
    output_quota: bool | None = None

    def resolved_link_policy(self) -> bool:
        return True if self.link_policy is None else self.link_policy

    def resolved_profile(self) -> str:
        return self.profile or resolve_backend(self.backend).profile

    def file_size_limit(self) -> int:
        """Every job's RLIMIT_FSIZE: no file a job wrote can be larger."""
        return self.max_file_bytes or (32 if self.backend == "cuda" else 2) * 1024**3

    def resolved_output_quota(self) -> bool:
        return self.backend != "cuda" if self.output_quota is None else self.output_quota

    def output_quota_bytes(self) -> int:
        """The size of the filesystem of the candidate's own output directory
        (``candidate-out/``, harness/_session.py): room for two files of the largest size a
        job may write (the outputs it saves and a checked call's), and 64 MiB besides."""
        return 2 * self.file_size_limit() + 64 * 1024**2

    def limits(self, timeout_s: float, cpu_time_s: int | None = None) -> SandboxLimits:
        return SandboxLimits(wall_timeout_s=timeout_s, cpu_time_s=cpu_time_s,
                             memory_bytes=self.memory_bytes, max_processes=self.max_processes,
                             max_file_size_bytes=self.file_size_limit())
