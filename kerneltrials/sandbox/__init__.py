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
from kerneltrials.sandbox._registry import (
    SANDBOXES,
    register_sandbox,
    resolve_sandbox,
    sandbox_names,
)

__all__ = [
    "SANDBOXES",
    "ExitInfo",
    "JobSpec",
    "Mount",
    "Sandbox",
    "SandboxLimits",
    "SandboxStartError",
    "SandboxedProcess",
    "build_job_env",
    "redact",
    "register_sandbox",
    "resolve_sandbox",
    "sandbox_names",
]
