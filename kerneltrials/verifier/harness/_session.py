"""The state of one verification: its directories, workers and the verdict being built."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from kerneltrials._scratch import make_scratch_dir, remove_tree
from kerneltrials.sandbox import Mount, Sandbox, resolve_sandbox
from kerneltrials.tasks import ShapeConfig, TaskSpec
from kerneltrials.verifier._options import CheckOptions
from kerneltrials.verifier.harness._jobs import WorkerJob, prestart_workers, role_env
from kerneltrials.verifier.harness._output_quota import confirm_output_quota, mount_output_quota
from kerneltrials.verifier.protocol import HandedArtifact
from kerneltrials.verifier.verdict import ConfigResult, Status


def load_trusted(path: str) -> Any:
    """A tensor file the reference worker wrote (``private/``, ``exchange/``), mapped
    rather than copied: no fresh pages to fault in for tens of MB per configuration.
    Never for a file the candidate can write (``candidate-out/``): its job could change
    or truncate a mapped file under the parent (a truncation is a SIGBUS here)."""
    return torch.load(path, weights_only=True, mmap=True)


class Outcome(Exception):
    """Ends a verification early with a status and reasons (the candidate's outcome)."""

    def __init__(self, status: Status, *reasons: str) -> None:
        super().__init__(f"{status}: {'; '.join(reasons)}")
        self.status = status
        self.reasons = list(reasons)


def visible_gpu_index() -> int:
    """The host index of the GPU the harness uses: the first of ``CUDA_VISIBLE_DEVICES``
    when it names one by number (jobs inherit that variable), else device 0."""
    first = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
    return int(first) if first.isdigit() else 0


@dataclass
class Session:
    """Directories are laid out so each worker can write only where it must:
    ``exchange/`` (inputs; the reference writes, the candidate reads), ``private/``
    (reference outputs; never visible to the candidate), ``candidate-out/``.
    """

    task: TaskSpec
    source: str
    options: CheckOptions
    configs: list[ShapeConfig]
    hidden_seed: int
    root: Path = field(default_factory=lambda: make_scratch_dir("check"))
    sandbox: Sandbox | None = None
    workers: list[WorkerJob] = field(default_factory=list)
    artifacts: list[HandedArtifact] = field(default_factory=list)  # copies the run job loads
    results: dict[str, ConfigResult] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)
    isolation: dict[str, Any] = field(default_factory=dict)
    build_info: dict[str, Any] = field(default_factory=dict)
    durations_s: dict[str, float] = field(default_factory=dict)
    #: The reference's work by kind, per configuration: the mixed policy's yardstick.
    reference_work: dict[str, dict[str, float]] = field(default_factory=dict)
    #: The last configuration's reference pool outputs, as (configuration, outputs).
    _pool: tuple[str, Any] | None = field(default=None, init=False, repr=False)
    #: The size of ``candidate-out/``'s own filesystem, or why it has none (the verdict's
    #: isolation reports both).
    output_quota: dict[str, Any] = field(default_factory=dict, init=False)

    def pool_path(self, config_name: str) -> str:
        """Where the reference writes its outputs on ``config_name``'s timing input pool."""
        return self.path("private", f"pool-{config_name}.pt")

    def reference_pool(self, config_name: str) -> Any:
        """Those outputs, loaded once per configuration (the readdressed check and the
        spot check after every timed batch all read them)."""
        if self._pool is None or self._pool[0] != config_name:
            self._pool = (config_name, load_trusted(self.pool_path(config_name)))
        return self._pool[1]

    def inputs_path(self, config_name: str, seed: int) -> str:
        """Where the reference writes one input seed's inputs (correctness and backward
        read the same file)."""
        return self.path("exchange", f"inputs-{config_name}-{seed}.pt")

    def discard(self, *paths: str) -> None:
        """Remove exchanged files the parent has read: a check's scratch holds one input
        seed's files at a time, not every configuration's (gigabytes on the larger tasks)."""
        for path in paths:
            Path(path).unlink(missing_ok=True)

    def __post_init__(self) -> None:
        for name in ("candidate", "exchange", "private", "candidate-out", "artifacts"):
            (self.root / name).mkdir(parents=True, exist_ok=True)
        (self.root / "artifacts").chmod(0o755)  # read by the candidate job's user
        self.candidate_path.write_text(self.source)
        self.output_quota = mount_output_quota(self.root / "candidate-out", self.options)

    def confirm_output_quota(self, pids: Iterable[int]) -> None:
        """Report the output quota as the candidate's job (``pids``, once it is up) sees
        it, falling back to the directory under it where the job does not
        (``_output_quota``)."""
        self.output_quota = confirm_output_quota(self.root / "candidate-out",
                                                 self.output_quota, pids)
        self.isolation.update(self.output_quota)

    @property
    def candidate_path(self) -> Path:
        return self.root / "candidate" / "candidate.py"

    def path(self, area: str, name: str) -> str:
        return str(self.root / area / name)

    def mounts_for(self, role: str) -> list[Mount]:
        """What a worker of ``role`` sees besides the runtime, at the same paths as here.

        No job sees the build cache: the collect job sees the candidate only; a compile
        job gets its output directory and toolchain entries from :meth:`start_worker`;
        the candidate job reads its libraries from ``artifacts/``, where the parent
        copies them after checking their digests. The reference never sees the
        candidate; the candidate never sees ``private/``.
        """
        if role == "collect":
            return [Mount(self.root / "candidate")]
        if role == "compile":
            return []
        if role == "reference":
            return [Mount(self.root / "exchange", writable=True),
                    Mount(self.root / "private", writable=True)]
        return [Mount(self.root / "candidate"), Mount(self.root / "exchange"),
                Mount(self.root / "candidate-out", writable=True), Mount(self.root / "artifacts")]

    def prestart(self) -> None:
        """Make the sandbox and begin what this check's workers start from, without
        waiting (an unusable sandbox is reported by :meth:`start_worker`)."""
        if self.sandbox is None:
            self.sandbox = prestart_workers(self.options.sandbox, self.options.backend,
                                            self.root)

    def start_worker(self, role: str, timeout_s: float, cpu_time_s: int | None = None,
                     extra_mounts: list[Mount] | None = None,
                     extra_env: dict[str, str] | None = None,
                     wrapper: list[str] | None = None) -> WorkerJob:
        """Start a worker; raises ``SandboxStartError`` when the sandbox cannot (an
        unreachable container engine included: the sandbox is made on first use).
        ``wrapper``: an argv prefix (a profiler) the worker runs under; such a worker is
        an extra one, so the verdict's isolation stays the first candidate worker's."""
        if self.sandbox is None:
            self.sandbox = resolve_sandbox(self.options.sandbox)
        env = role_env(role, self.options.backend, extra_env)
        # The workers that run code on the device get its nodes (bwrap binds them, docker
        # requests the device); the build jobs and every cpu-backend job get none.
        gpu_index = visible_gpu_index() if (
            self.options.backend == "cuda" and role in ("reference", "candidate")) else None
        job = WorkerJob(self.sandbox, role, self.root, self.mounts_for(role) + (extra_mounts or []),
                        self.options.limits(timeout_s, cpu_time_s), extra_env=env,
                        gpu_index=gpu_index, wrapper=wrapper,
                        freeze_at_rest=role == "candidate" and self.options.freeze_at_rest)
        self.workers.append(job)
        if wrapper:
            return job
        # The verdict reports the isolation candidate code ran under: the candidate
        # worker's, else the collect worker's (the candidate worker may start first).
        if role == "candidate" or (role == "collect" and not self.isolation):
            self.isolation = job.isolation
        if role == "candidate":
            self.isolation["frozen_at_rest"] = job.freeze_at_rest
        return job

    def close(self) -> None:
        for worker in self.workers:
            if worker.role == "candidate" and worker.rest.freezes:
                self.isolation["at_rest"] = worker.rest.summary()
        for worker in self.workers:  # every worker tears torch down at once
            worker.ask_to_exit()
        for worker in self.workers:
            worker.close()
        remove_tree(self.root)  # what the candidate's job wrote, however deep
