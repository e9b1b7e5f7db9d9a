"""Isolation backends for untrusted candidate jobs (``process``, ``docker``)."""

from kerneltrials.sandbox._base import (
    ExitInfo,
    JobSpec,
    Mount,
    Sandbox,
    SandboxedProcess,
    SandboxLimits,
    SandboxStartError,
)
from kerneltrials.sandbox._env import build_job_env, redact
from kerneltrials.sandbox._freezer import FreezeError
from kerneltrials.sandbox._live import stop_live_jobs
from kerneltrials.sandbox._memory import (
    MemoryReadError,
    ProcessNotInJobError,
    read_process_elements,
    read_process_memory,
    read_process_memory_into,
    read_process_memory_many,
    read_process_ranges,
)
from kerneltrials.sandbox._registry import (
    SANDBOXES,
    register_sandbox,
    resolve_sandbox,
    sandbox_names,
)

__all__ = [
    "SANDBOXES",
    "ExitInfo",
    "FreezeError",
    "JobSpec",
    "MemoryReadError",
    "Mount",
    "ProcessNotInJobError",
    "Sandbox",
    "SandboxLimits",
    "SandboxStartError",
    "SandboxedProcess",
    "build_job_env",
    "read_process_elements",
    "read_process_ranges",
    "read_process_memory",
    "read_process_memory_into",
    "read_process_memory_many",
    "redact",
    "register_sandbox",
    "resolve_sandbox",
    "sandbox_names",
    "stop_live_jobs",
]
